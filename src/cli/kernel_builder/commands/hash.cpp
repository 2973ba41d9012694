// `kernel-builder hash [KERNEL_DIR]` (docs/cli.md): recompute the SHA-256 digest of every discovered
// variant and rewrite its metadata.json in canonical form with the new digest. A metadata.json
// whose bytes would not change is left alone: a signature over it (metadata.json.sigstore) stays
// valid; one that changes under a signature gets a warning, since the signature no longer holds.
#include <iostream>
#include <memory>

#include "cli/command_registry.h"
#include "cli/kernel_builder/commands/kernel_dir.h"
#include "metadata/digest.h"
#include "metadata/metadata.h"
#include "util/fs.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

namespace fs = std::filesystem;

util::Status hash_variants(const std::string& dir) {
  auto found = discover_built_variants(dir);
  if (!found) return std::move(found).error();
  for (const auto& variant : found->variants) {
    std::cerr << "Hashing variant `" << variant.name << "`...\n";
    fs::path file = variant.path / "metadata.json";
    auto parsed = metadata::read_metadata_file(file.string());
    if (!parsed) return std::move(parsed).error();
    auto digest = metadata::compute_digest(variant.path);
    if (!digest) return std::move(digest).error();
    parsed->digest = *digest;
    const std::string rendered = metadata::render_metadata(*parsed);
    auto current = util::read_file(file);
    if (current && *current == rendered) continue;
    KB_TRY(util::write_file_atomic(file, rendered));
    if (fs::exists(variant.path / "metadata.json.sigstore")) {
      std::cerr << "warning: `" << variant.name << "`: metadata.json changed, so its signature "
                << "(metadata.json.sigstore) no longer matches it; sign metadata.json again, e.g. with "
                << "`python -m sigstore sign --overwrite --bundle metadata.json.sigstore metadata.json` in the variant\n";
    }
  }
  return {};
}

const RegisterCommand registration("kernel-builder", {"hash", "Compute the file digest of built variants into metadata.json",
                                                      kernel_dir_command(hash_variants)});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
