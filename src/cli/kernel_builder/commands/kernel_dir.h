// The KERNEL_DIR argument that most kernel-builder commands take, and the built variants found
// under it. Header-only because the command files are globbed one subcommand per .cpp.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/command_registry.h"
#include "metadata/discovery.h"

namespace kb::cli {

// The optional positional KERNEL_DIR (`dir` keeps its default, usually ".", when it is not given).
inline CLI::Option* add_kernel_dir(CLI::App& app, std::string& dir) {
  return app.add_option("KERNEL_DIR", dir, "Kernel directory (default: current directory)");
}

// The built variants of the kernel in `dir`, which must be a directory (require_directory).
inline util::Result<metadata::DiscoveredVariants> discover_built_variants(const std::string& dir) {
  KB_TRY(require_directory(dir));
  return metadata::discover_variants(dir);
}

// The setup (Command::setup) of a command whose only argument is KERNEL_DIR: its action runs
// `run` on the directory and exits with exit_status of the answer.
inline std::function<Action(CLI::App&)> kernel_dir_command(std::function<util::Status(const std::string& dir)> run) {
  return [run](CLI::App& app) -> Action {
    auto dir = std::make_shared<std::string>(".");
    add_kernel_dir(app, *dir);
    return [run, dir] { return exit_status(run(*dir)); };
  };
}

// The KERNEL_DIR and TARGET_DIR positionals of the pyproject commands, as given.
struct ProjectDirArguments {
  std::string kernel_dir = ".";
  std::string target_dir;  // empty: the kernel directory
};
inline void add_project_dirs(CLI::App& app, ProjectDirArguments& arguments, const std::string& target_help) {
  add_kernel_dir(app, arguments.kernel_dir);
  app.add_option("TARGET_DIR", arguments.target_dir, target_help);
}

// Those directories, absolute and normalised; both must be directories, and an empty TARGET_DIR
// is the kernel directory.
struct ProjectDirs {
  std::filesystem::path kernel;
  std::filesystem::path target;
};
inline util::Result<ProjectDirs> project_dirs(const ProjectDirArguments& arguments) {
  for (const auto& dir : {arguments.kernel_dir, arguments.target_dir}) {
    if (!dir.empty()) KB_TRY(require_directory(dir));
  }
  auto kernel = std::filesystem::absolute(arguments.kernel_dir).lexically_normal();
  auto target = arguments.target_dir.empty() ? kernel : std::filesystem::absolute(arguments.target_dir).lexically_normal();
  return ProjectDirs{kernel, target};
}

}  // namespace kb::cli
