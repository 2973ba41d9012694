// `kernel-builder hash [KERNEL_DIR]` (cli.md): recompute the SHA-256 digest of every discovered
// variant and rewrite its metadata.json in canonical form with the new digest.
#include <iostream>
#include <memory>

#include "cli/command_registry.h"
#include "metadata/digest.h"
#include "metadata/discovery.h"
#include "metadata/metadata.h"
#include "util/fs.h"

namespace kb::cli {
namespace {

namespace fs = std::filesystem;

struct Options {
  std::string dir = ".";
};

util::Status hash_variants(const Options& options) {
  KB_TRY(require_directory(options.dir));
  auto found = metadata::discover_variants(options.dir);
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

Action setup(CLI::App& app) {
  auto options = std::make_shared<Options>();
  app.add_option("KERNEL_DIR", options->dir, "Kernel directory (default: current directory)");
  return [options] { return exit_status(hash_variants(*options)); };
}

const RegisterCommand registration("kernel-builder",
                                   {"hash", "Compute the file digest of built variants into metadata.json", setup});

}  // namespace
}  // namespace kb::cli
