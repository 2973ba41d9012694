// `kernel-builder build-and-upload [KERNEL_DIR]`: `build` (with its flags and --variant) then
// `upload` (with all its flags), stopping if the build fails.
#include "cli/kernel_builder/commands/build_command.h"
#include "cli/kernel_builder/commands/upload_command.h"

namespace kb::cli {
namespace {

struct Options {
  BuildCommandOptions build;
  UploadCommandOptions upload;
};

Action setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  add_build_flags(app, o->build, true);
  add_upload_flags(app, o->upload);
  return [o] {
    int built = run_build_command(o->build);
    if (built != 0) return built;
    return run_upload_command(o->upload, o->build.kernel_dir);
  };
}

const RegisterCommand registration("kernel-builder", {"build-and-upload", "Build the variants, then upload them", setup, false, 61});

}  // namespace
}  // namespace kb::cli
