// `kernel-builder hash [KERNEL_DIR]` (cli.md): recompute the SHA-256 digest of every discovered
// variant and rewrite its metadata.json in canonical form with the new digest.
#include <iostream>
#include <memory>

#include "cli/command_registry.h"
#include "cli/kernel_builder/commands/kernel_dir.h"
#include "metadata/digest.h"
#include "metadata/metadata.h"
#include "util/fs.h"

namespace kb::cli {
namespace {

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
    KB_TRY(util::write_file_atomic(file, metadata::render_metadata(*parsed)));
  }
  return {};
}

const RegisterCommand registration("kernel-builder", {"hash", "Compute the file digest of built variants into metadata.json",
                                                      kernel_dir_command(hash_variants)});

}  // namespace
}  // namespace kb::cli
