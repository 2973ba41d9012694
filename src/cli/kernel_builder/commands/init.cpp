// `kernel-builder init [PATH] --name OWNER/REPO --backends ... [--license L] [--overwrite]`:
// scaffold a new kernel project (docs/cli.md `init`, docs/build-output.md).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_registry.h"
#include "codegen/generated_files.h"
#include "codegen/scaffold/git_staging.h"
#include "codegen/scaffold/scaffold.h"
#include "util/exit_code.h"
#include "util/report.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

namespace fs = std::filesystem;

struct Options {
  std::optional<std::string> path;
  std::optional<std::string> name;
  std::string license = "Apache-2.0";
  std::vector<std::string> backends;
  bool overwrite = false;
};

constexpr const char* not_logged_in =
    "Not logged in to Hugging Face. Run `hf auth login` first, or use --name <owner/repo> to skip auto-detection.";

// Where huggingface_hub keeps the token when HF_TOKEN is not set.
fs::path token_file() {
  if (const char* explicit_path = std::getenv("HF_TOKEN_PATH"); explicit_path && *explicit_path) return explicit_path;
  if (const char* hf_home = std::getenv("HF_HOME"); hf_home && *hf_home) return fs::path(hf_home) / "token";
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "huggingface" / "token";
  const char* home = std::getenv("HOME");
  return fs::path(home ? home : ".") / ".cache" / "huggingface" / "token";
}

bool has_token() {
  if (const char* token = std::getenv("HF_TOKEN"); token && *token) return true;
  std::error_code ec;
  return fs::is_regular_file(token_file(), ec) && fs::file_size(token_file(), ec) > 0;
}

// The Hub user name for owner inference. The Hub client (whoami) is not part of this build
// yet, so a present token cannot be resolved to a user name.
util::Result<std::string> hub_user() {
  if (!has_token()) return util::Error(util::ErrorKind::permission, not_logged_in);
  return util::Error(util::ErrorKind::permission,
                     "Cannot determine your Hugging Face user name: this kernel-builder has no Hub client yet to ask "
                     "the Hub who owns the token")
      .with_hint("use --name <owner/repo> to skip auto-detection");
}

util::Result<std::pair<std::string, std::string>> parse_name_option(const std::string& value) {
  auto parsed = scaffold::parse_owner_repo(value);
  if (!parsed) {
    return util::Error(util::ErrorKind::usage,
                       "invalid value '" + value + "' for '--name <OWNER/REPO>': must be <owner>/<repo>");
  }
  return parsed;
}

struct Target {
  scaffold::KernelIdentity identity;
  fs::path dir;
};

// Directory and name resolution of docs/cli.md `init`.
util::Result<Target> resolve_target(const Options& options) {
  std::string owner, repo;
  std::optional<fs::path> dir;
  if (options.name) {
    auto parsed = parse_name_option(*options.name);
    if (!parsed) return std::move(parsed).error();
    std::tie(owner, repo) = parsed.value();
    if (options.path) dir = fs::path(*options.path);
  } else if (options.path) {
    if (auto parsed = scaffold::parse_owner_repo(*options.path)) {
      std::tie(owner, repo) = parsed.value();
    } else {
      fs::path p = fs::path(*options.path).lexically_normal();
      repo = (p.has_filename() ? p.filename() : p.parent_path().filename()).string();
      auto user = hub_user();
      if (!user) return std::move(user).error();
      owner = user.value();
    }
  } else {
    dir = fs::current_path();
    repo = dir->filename().string();
    auto user = hub_user();
    if (!user) return std::move(user).error();
    owner = user.value();
  }
  auto identity = scaffold::make_identity(owner, repo);
  if (!identity) return std::move(identity).error();
  if (!dir) dir = fs::path(".") / identity->display_name;
  return Target{identity.value(), fs::absolute(*dir).lexically_normal()};
}

// What to run next, with the project directory as the user would type it (relative when it is
// under the current directory).
std::string next_steps(const fs::path& dir) {
  std::error_code ec;
  fs::path shown = dir;
  fs::path relative = dir.lexically_relative(fs::current_path(ec));
  if (!ec && !relative.empty() && *relative.begin() != "..") shown = relative;
  std::string cd = shown.generic_string();
  if (!cd.empty() && cd.back() == '/') cd.pop_back();
  std::string out = "\nNext steps:\n";
  if (cd != ".") out += "  cd " + cd + "\n";
  out +=
      "  kernel-builder build     # build/<variant>/ for every toolchain found (`list-variants --mark`)\n"
      "  kernel-builder upload    # to the Hub at HF_ENDPOINT, with HF_TOKEN\n";
  return out;
}

int run_init(const Options& options) {
  auto backends = scaffold::parse_scaffold_backends(options.backends);
  if (!backends) return report_error(backends.error());
  auto target = resolve_target(options);
  if (!target) return report_error(target.error());

  scaffold::ScaffoldOptions scaffold_options{target->identity, options.license, backends.value()};
  auto files = scaffold::render_scaffold(scaffold_options);
  if (!files) return report_error(files.error());
  if (auto written = codegen::write_generated_files(target->dir, *files, options.overwrite, "--overwrite"); !written) {
    return report_error(written.error());
  }
  auto git = scaffold::stage_in_git(target->dir, *files);
  if (!git) return report_error(git.error());
  for (const auto& warning : git->warnings) util::print_warning(warning);

  std::string dir = target->dir.string();
  if (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  std::fprintf(stderr, "Initialized `%s` at %s\n", target->identity.repo_id.c_str(), dir.c_str());
  std::fputs(next_steps(target->dir).c_str(), stderr);
  return util::to_int(util::ExitCode::success);
}

Action setup(CLI::App& app) {
  auto options = std::make_shared<Options>();
  app.add_option("PATH", options->path, "Directory of the new project, or OWNER/REPO");
  app.add_option("--name", options->name, "Hub repository of the kernel (OWNER/REPO)")->type_name("<OWNER/REPO>");
  app.add_option("--license", options->license, "License of the kernel (default: Apache-2.0)")->type_name("<LICENSE>");
  app.add_option("--backends", options->backends,
                 "Backends to scaffold: all, cpu, cuda, metal, rocm, xpu (default: metal on macOS, cuda elsewhere)")
      ->type_name("<BACKENDS>...")
      ->expected(1, -1);
  app.add_flag("--overwrite", options->overwrite, "Overwrite files that already exist");
  return [options] { return run_init(*options); };
}

const RegisterCommand registration("kernel-builder", {"init", "Create a new kernel project", setup, false, 10});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
