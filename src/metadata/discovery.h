// Variant discovery (docs/cli.md): which directory holds the built variants of a kernel.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "util/result.h"

namespace kb::metadata {

struct VariantDir {
  std::string name;            // directory name, e.g. torch211-cxx11-cpu-x86_64-linux
  std::filesystem::path path;  // the variant directory
};

struct DiscoveredVariants {
  std::filesystem::path root;  // the candidate that won: <dir>/result, <dir>/build or <dir>
  std::vector<VariantDir> variants;  // sorted by name
};

// Candidates `<dir>/result`, `<dir>/build`, `<dir>`: the first with at least one immediate
// subdirectory containing `metadata.json` wins. None: `No build variants found in ...`.
util::Result<DiscoveredVariants> discover_variants(const std::filesystem::path& dir);

}  // namespace kb::metadata
