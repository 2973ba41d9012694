// Writing the scaffold and staging it in git (see scaffold_writer.h).
#include "codegen/scaffold/scaffold_writer.h"

#include "util/fs.h"
#include "util/process.h"
#include "util/strings.h"

namespace kb::scaffold {

namespace fs = std::filesystem;

std::vector<std::string> existing_targets(const fs::path& dir, const std::vector<GeneratedFile>& files) {
  std::vector<std::string> existing;
  for (const auto& file : files) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(dir / file.path, ec))) existing.push_back(file.path);
  }
  return existing;
}

util::Status write_scaffold(const fs::path& dir, const std::vector<GeneratedFile>& files, bool overwrite) {
  if (!overwrite) {
    auto existing = existing_targets(dir, files);
    if (!existing.empty()) {
      return util::Error(util::ErrorKind::io, "File(s) already exists in target directory: " + util::join(existing, ", ") +
                                                  "\nUse `--overwrite` to overwrite.");
    }
  }
  for (const auto& file : files) {
    fs::path target = dir / file.path;
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    if (ec) {
      return util::Error(util::ErrorKind::io, "Cannot create directory `" + target.parent_path().string() + "`")
          .with_cause(ec.message());
    }
    KB_TRY(util::write_file_atomic(target, file.content));
  }
  return {};
}

util::Result<GitOutcome> stage_in_git(const fs::path& dir, const std::vector<GeneratedFile>& files) {
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
  for (const auto& file : files) argv.push_back(file.path);
  auto add = util::run_process(argv, options);
  if (!add) return std::move(add).error();
  if (!add->success()) {
    return util::Error(util::ErrorKind::process, "Cannot stage the new files with `git add`")
        .with_cause(std::string(util::trim(add->stderr_text)));
  }
  return outcome;
}

}  // namespace kb::scaffold
