// `kernel-builder build-and-copy [KERNEL_DIR]` (docs/cli.md): alias of `build` without `--variant`,
// kept for upstream scripts.
#include "cli/kernel_builder/commands/build_command.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

const RegisterCommand registration("kernel-builder", {"build-and-copy", "Build all variants into build/ (alias of `build`)",
                                                      build_command(false), false, 21});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
