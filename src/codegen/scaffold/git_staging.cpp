// Staging a new project in git (see git_staging.h).
#include "codegen/scaffold/git_staging.h"

#include "util/process.h"
#include "util/strings.h"

namespace kb::scaffold {

namespace fs = std::filesystem;

util::Result<GitOutcome> stage_in_git(const fs::path& dir, const codegen::GeneratedFiles& files) {
  GitOutcome outcome;
  if (!util::find_program("git")) {
    outcome.warnings.push_back("`git` not found on PATH; the project was not made a git repository");
    return outcome;
  }
  util::ProcessOptions options;
  options.cwd = dir;
  auto inside = util::run_process({"git", "rev-parse", "--is-inside-work-tree"}, options);
  if (!inside) return std::move(inside).error();
  if (!inside->success() || util::trim(inside->stdout_text) != "true") {
    auto init = util::run_process({"git", "init", "--quiet"}, options);
    if (!init) return std::move(init).error();
    if (!init->success()) {
      return util::Error(util::ErrorKind::process, "Cannot initialize a git repository in `" + dir.string() + "`")
          .with_cause(std::string(util::trim(init->stderr_text)));
    }
    outcome.initialized = true;
  }
  std::vector<std::string> argv = {"git", "add", "--"};
  for (const auto& [path, content] : files) argv.push_back(path);
  auto add = util::run_process(argv, options);
  if (!add) return std::move(add).error();
  if (!add->success()) {
    return util::Error(util::ErrorKind::process, "Cannot stage the new files with `git add`")
        .with_cause(std::string(util::trim(add->stderr_text)));
  }
  return outcome;
}

}  // namespace kb::scaffold
