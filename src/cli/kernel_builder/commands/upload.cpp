// `kernel-builder upload [KERNEL_DIR]`: publish built variants (docs/cli.md, docs/hub-api.md).
#include "cli/kernel_builder/commands/kernel_dir.h"
#include "cli/kernel_builder/commands/upload_command.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

struct Options {
  std::string dir = ".";
  UploadCommandOptions upload;
};

Action setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  add_kernel_dir(app, o->dir);
  add_upload_flags(app, o->upload);
  return [o] { return run_upload_command(o->upload, o->dir); };
}

const RegisterCommand registration("kernel-builder", {"upload", "Upload built variants to the Hub", setup, false, 60});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
