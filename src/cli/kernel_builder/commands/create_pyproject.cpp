// `kernel-builder create-pyproject [KERNEL_DIR] [TARGET_DIR]` (docs/cli.md, docs/build-output.md):
// write the generated CMake/setuptools project; nothing is written if a file exists, unless --force.
#include <iostream>
#include <memory>

#include "builder/unique_id.h"
#include "cli/app.h"
#include "cli/command_registry.h"
#include "cli/kernel_builder/commands/kernel_dir.h"
#include "codegen/pyproject.h"
#include "config/reader.h"
#include "metadata/metadata.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

namespace fs = std::filesystem;

struct Options {
  ProjectDirArguments dirs;
  bool force = false;
  std::string unique_id;
  std::string kernel_sha;
  bool kernel_dirty = false;
};

util::Status create_pyproject(const Options& o) {
  auto dirs = project_dirs(o.dirs);
  if (!dirs) return std::move(dirs).error();
  const fs::path& kernel = dirs->kernel;
  const fs::path& target = dirs->target;
  if (o.kernel_dirty && o.kernel_sha.empty()) {
    return util::Error(util::ErrorKind::usage, "`--kernel-dirty` requires `--kernel-sha`");
  }
  if (!o.kernel_sha.empty() && !metadata::is_valid_oid(o.kernel_sha)) {
    return util::Error(util::ErrorKind::usage, "`--kernel-sha` must be 40 or 64 hex digits");
  }
  auto config = config::load_build_config(kernel);
  if (!config) return std::move(config).error();
  auto git = builder::read_git_info(kernel);
  codegen::PyprojectInput input;
  input.config = &*config;
  if (fs::weakly_canonical(target) != fs::weakly_canonical(kernel)) input.project_dir = kernel.string();
  if (!o.unique_id.empty()) KB_TRY(builder::check_unique_id(o.unique_id));
  input.unique_id = builder::make_unique_id(o.unique_id.empty() ? std::nullopt : std::optional(o.unique_id), git);
  metadata::BuilderProvenance builder{builder_version(), std::nullopt};
  if (metadata::is_valid_oid(builder_commit())) builder.git = metadata::GitState{builder_commit(), builder_dirty()};
  input.provenance.kernel_builder = builder;
  if (!o.kernel_sha.empty()) {
    input.provenance.kernel = metadata::GitState{o.kernel_sha, o.kernel_dirty};
  } else {
    input.provenance.kernel = builder::kernel_git_state(git);
  }
  auto files = codegen::generate_pyproject(input);
  if (!files) return std::move(files).error();
  return codegen::write_generated_files(target, *files, o.force, "--force");
}

Action setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  add_project_dirs(app, o->dirs, "Where to write the project (default: the kernel directory)");
  app.add_flag("-f,--force", o->force, "Overwrite existing files");
  app.add_option("--unique-id", o->unique_id, "Unique id of the ops namespace (default: from git)");
  app.add_option("--kernel-sha", o->kernel_sha, "Kernel commit recorded in provenance (40/64 hex)");
  app.add_flag("--kernel-dirty", o->kernel_dirty, "With --kernel-sha: the tree had uncommitted changes");
  return [o] { return exit_status(create_pyproject(*o)); };
}

const RegisterCommand registration("kernel-builder",
                                   {"create-pyproject", "Write a CMake/setuptools project for the kernel", setup});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
