// `kernel-builder check-builds [KERNEL_DIR]` (cli.md): every discovered variant must have a
// parsable metadata.json; ours also verifies the recorded digest when there is one. The rules
// live in metadata::check_variant, which `upload` runs too.
#include <iostream>
#include <memory>

#include "cli/command_registry.h"
#include "metadata/discovery.h"
#include "metadata/variant_check.h"
#include "util/report.h"

namespace kb::cli {
namespace {

struct Options {
  std::string dir = ".";
};

util::Status check_builds(const Options& options) {
  KB_TRY(require_directory(options.dir));
  auto found = metadata::discover_variants(options.dir);
  if (!found) return std::move(found).error();
  for (const auto& variant : found->variants) {
    auto checked = metadata::check_variant(variant);
    if (!checked) return std::move(checked).error();
  }
  return {};
}

Action setup(CLI::App& app) {
  auto options = std::make_shared<Options>();
  app.add_option("KERNEL_DIR", options->dir, "Kernel directory (default: current directory)");
  return [options] { return exit_status(check_builds(*options)); };
}

const RegisterCommand registration("kernel-builder",
                                   {"check-builds", "Check that built variants have valid metadata and digests", setup});

}  // namespace
}  // namespace kb::cli
