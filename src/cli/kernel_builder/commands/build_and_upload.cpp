// `kernel-builder build-and-upload [KERNEL_DIR]`: `build` (with its flags and --variant) then
// `upload` (with all its flags), stopping if the build fails.
#include "cli/kernel_builder/commands/build_command.h"
#include "cli/kernel_builder/commands/upload_command.h"

#include <iostream>

#include "util/strings.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

struct Options {
  BuildCommandOptions build;
  UploadCommandOptions upload;
};

Action setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  add_build_flags(app, o->build, true);
  add_upload_flags(app, o->upload);
  return [o] {
    builder::BuildSummary summary;
    int built = run_build_command(o->build, &summary);
    if (built != 0) return built;
    if (!summary.not_built.empty()) {
      // docs/cli.md: build-and-upload warns when it uploads a partial bundle.
      std::cerr << "warning: uploading a partial bundle: " << summary.not_built.size()
                << " variant(s) of this kernel were not built in this run: " << util::join(summary.not_built, ", ")
                << ". Users whose torch/accelerator match only those get no variant from this upload; build them "
                   "where their toolchains exist (`build --bundle` requires them all).\n";
    }
    return run_upload_command(o->upload, o->build.kernel_dir);
  };
}

const RegisterCommand registration("kernel-builder", {"build-and-upload", "Build the variants, then upload them", setup, false, 61});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
