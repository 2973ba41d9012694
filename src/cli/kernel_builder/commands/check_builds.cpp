// `kernel-builder check-builds [KERNEL_DIR]` (docs/cli.md): every discovered variant must have a
// parsable metadata.json; ours also verifies the recorded digest when there is one. The rules
// live in metadata::check_variant, which `upload` runs too.
#include <iostream>
#include <memory>

#include "cli/command_registry.h"
#include "cli/kernel_builder/commands/kernel_dir.h"
#include "metadata/variant_check.h"
#include "util/report.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

util::Status check_builds(const std::string& dir) {
  auto found = discover_built_variants(dir);
  if (!found) return std::move(found).error();
  for (const auto& variant : found->variants) {
    auto checked = metadata::check_variant(variant);
    if (!checked) return std::move(checked).error();
  }
  return {};
}

const RegisterCommand registration("kernel-builder", {"check-builds", "Check that built variants have valid metadata and digests",
                                                      kernel_dir_command(check_builds)});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
