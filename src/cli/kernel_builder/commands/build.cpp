// `kernel-builder build [KERNEL_DIR]` (cli.md): build variants into KERNEL_DIR/build/ with the
// local toolchains (src/builder/builder.h does the work; this file maps flags).
#include "cli/kernel_builder/commands/build_command.h"

namespace kb::cli {
namespace {

Action setup(CLI::App& app) {
  auto options = std::make_shared<BuildCommandOptions>();
  add_build_flags(app, *options, true);
  return [options] { return run_build_command(*options); };
}

const RegisterCommand registration("kernel-builder", {"build", "Build the kernel's variants into build/", setup, false, 20});

}  // namespace
}  // namespace kb::cli
