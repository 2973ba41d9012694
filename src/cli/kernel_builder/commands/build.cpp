// `kernel-builder build [KERNEL_DIR]` (docs/cli.md): build variants into KERNEL_DIR/build/ with the
// local toolchains (src/builder/builder.h does the work; build_command.h maps flags).
#include "cli/kernel_builder/commands/build_command.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

const RegisterCommand registration("kernel-builder",
                                   {"build", "Build the kernel's variants into build/", build_command(true), false, 20});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
