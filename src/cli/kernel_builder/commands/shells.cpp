// `kernel-builder devshell` and `testshell` [KERNEL_DIR] [--variant V] [-- COMMAND...]
// (docs/cli.md): start $SHELL, or run COMMAND, in the environment of one build set
// (src/builder/shell_env.h plans it; this file applies it and execs).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "builder/builder.h"
#include "builder/shell_env.h"
#include "cli/command_registry.h"
#include "cli/kernel_builder/commands/kernel_dir.h"
#include "config/reader.h"
#include "util/exit_code.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

struct Options {
  std::string dir = ".";
  std::optional<std::string> variant;
  std::vector<std::string> pythons;
  std::string toolchains;
  std::vector<std::string> command;
};

int run_shell(const Options& options, bool test_shell) {
  if (auto status = require_directory(options.dir); !status) return report_error(status.error());
  std::filesystem::path project = std::filesystem::absolute(options.dir).lexically_normal();
  auto config = config::load_build_config(project);
  if (!config) return report_error(config.error());
  builder::BuildOptions build_options;
  build_options.pythons = options.pythons;
  if (!options.toolchains.empty()) build_options.toolchains_file = options.toolchains;
  std::vector<std::string> problems;
  auto toolchains = builder::detect_toolchains(build_options, problems);
  if (!toolchains) return report_error(toolchains.error());
  for (const auto& problem : problems) std::fprintf(stderr, "warning: toolchain not usable: %s\n", problem.c_str());
  auto env = builder::shell_environment(*config, project, *toolchains, options.variant, test_shell);
  if (!env) return report_error(env.error());
  if (env->package) {
    std::error_code ec;
    const auto& [link, target] = *env->package;
    std::filesystem::create_directories(link.parent_path(), ec);
    if (!ec && std::filesystem::is_symlink(link)) std::filesystem::remove(link, ec);
    if (!ec) std::filesystem::create_directory_symlink(target, link, ec);
    if (ec) {
      return report_error(util::Error(util::ErrorKind::io, "Cannot create `" + link.string() + "`").with_cause(ec.message()));
    }
  }
  for (const auto& [key, value] : env->set) ::setenv(key.c_str(), value.c_str(), 1);
  for (const auto& key : env->unset) ::unsetenv(key.c_str());
  std::vector<std::string> argv = options.command;
  if (argv.empty()) {
    const char* shell = std::getenv("SHELL");
    argv.push_back(shell && *shell ? shell : "/bin/sh");
    std::fprintf(stderr, "%s for `%s` (%s); exit the shell to leave it\n", test_shell ? "testshell" : "devshell",
                 env->variant.c_str(), env->python.c_str());
  }
  std::vector<char*> raw;
  for (auto& arg : argv) raw.push_back(arg.data());
  raw.push_back(nullptr);
  // The shell starts in the kernel directory, where the project's tests are.
  if (::chdir(project.c_str()) != 0) {
    return report_error(util::Error(util::ErrorKind::io, "Cannot enter `" + project.string() + "`").with_cause(std::strerror(errno)));
  }
  ::execvp(raw[0], raw.data());
  return report_error(util::Error(util::ErrorKind::process, "Cannot run `" + argv[0] + "`").with_cause(std::strerror(errno)));
}

Action setup(CLI::App& app, bool test_shell) {
  auto options = std::make_shared<Options>();
  add_kernel_dir(app, options->dir);
  app.add_option("--variant", options->variant, "Build set by its arch name (see `list-variants --arch`)");
  app.add_option("--python", options->pythons, "Python interpreter with torch to consider as a toolchain (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--toolchains", options->toolchains, "Toolchain registry file (default: $KERNEL_BUILDER_TOOLCHAINS)");
  app.add_option("COMMAND", options->command, "Command to run instead of $SHELL (after `--`; give KERNEL_DIR before it)");
  return [options, test_shell] { return run_shell(*options, test_shell); };
}

const RegisterCommand devshell("kernel-builder",
                               {"devshell", "Start a shell (or run a command after --) with a build set's toolchain",
                                [](CLI::App& app) { return setup(app, false); }, false, 60});
const RegisterCommand testshell("kernel-builder",
                                {"testshell", "Start a shell (or run a command after --) with a built variant importable",
                                 [](CLI::App& app) { return setup(app, true); }, false, 61});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
