// `kernel-builder build-and-copy [KERNEL_DIR]` (cli.md): alias of `build` without `--variant`,
// kept for upstream scripts.
#include "cli/kernel_builder/commands/build_command.h"

namespace kb::cli {
namespace {

Action setup(CLI::App& app) {
  auto options = std::make_shared<BuildCommandOptions>();
  add_build_flags(app, *options, false);
  return [options] { return run_build_command(*options); };
}

const RegisterCommand registration("kernel-builder",
                                   {"build-and-copy", "Build all variants into build/ (alias of `build`)", setup, false, 21});

}  // namespace
}  // namespace kb::cli
