// `kernel-builder clean-pyproject [KERNEL_DIR] [TARGET_DIR]` (docs/cli.md): delete exactly the files
// `create-pyproject` generates (and the configure-time `_ops.py`), with a confirmation prompt.
#include <iostream>
#include <memory>
#include <system_error>

#include "cli/command_registry.h"
#include "cli/kernel_builder/commands/kernel_dir.h"
#include "codegen/pyproject.h"
#include "config/reader.h"
#include "util/strings.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

namespace fs = std::filesystem;

struct Options {
  ProjectDirArguments dirs;
  bool dry_run = false;
  bool force = false;
  std::string ops_id;  // accepted for compatibility; no generated file name contains it
};

int clean_pyproject(const Options& o) {
  auto dirs = project_dirs(o.dirs);
  if (!dirs) return report_error(dirs.error());
  const fs::path& target = dirs->target;
  auto config = config::load_build_config(dirs->kernel);
  if (!config) return report_error(config.error());
  std::vector<fs::path> present;
  std::error_code ec;
  for (const auto& relative : codegen::pyproject_artifacts(*config)) {
    fs::path path = target / relative;
    if (fs::is_regular_file(path, ec)) present.push_back(path);
  }
  if (present.empty()) {
    std::cerr << "No generated artifacts found to clean.\n";
    return 0;
  }
  if (o.dry_run) {
    std::cout << "Files that would be deleted:\n";
    for (const auto& path : present) std::cout << "  " << path.string() << "\n";
    return 0;
  }
  // The prompt, its answer and the progress below go to stderr: stdout carries data only (the
  // dry run's list).
  if (!o.force) {
    std::cerr << "Files to be deleted:\n";
    for (const auto& path : present) std::cerr << "  " << path.string() << "\n";
    std::cerr << "Continue? [y/N] " << std::flush;
    std::string answer;
    std::getline(std::cin, answer);
    answer = util::to_lower(util::trim(answer));
    if (answer != "y" && answer != "yes") {
      std::cerr << "Aborted.\n";
      return 1;
    }
  }
  bool failed = false;
  size_t deleted = 0;
  for (const auto& path : present) {
    if (fs::remove(path, ec) && !ec) {
      std::cerr << "Deleted: " << path.string() << "\n";
      ++deleted;
    } else {
      std::cerr << "Error: Failed to delete " << path.string() << ": " << ec.message() << "\n";
      failed = true;
    }
  }
  fs::path cmake_dir = target / "cmake";
  if (fs::is_directory(cmake_dir, ec) && fs::is_empty(cmake_dir, ec) && fs::remove(cmake_dir, ec)) {
    std::cerr << "Removed empty directory: " << cmake_dir.string() << "\n";
  }
  if (failed) return report_error(util::Error("Some files could not be deleted"));
  std::cerr << "Cleaned " << deleted << " generated artifacts.\n";
  return 0;
}

Action setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  add_project_dirs(app, o->dirs, "Directory holding the generated project (default: the kernel directory)");
  app.add_flag("-d,--dry-run", o->dry_run, "Only list the files that would be deleted");
  app.add_flag("-f,--force", o->force, "Do not ask for confirmation");
  app.add_option("--ops-id", o->ops_id, "Accepted for compatibility (no generated file name contains it)");
  return [o] { return clean_pyproject(*o); };
}

const RegisterCommand registration("kernel-builder",
                                   {"clean-pyproject", "Delete the files written by create-pyproject", setup});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
