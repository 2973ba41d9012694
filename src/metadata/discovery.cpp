// Variant discovery (see discovery.h).
#include "metadata/discovery.h"

#include <algorithm>

namespace kb::metadata {

namespace fs = std::filesystem;

namespace {

std::vector<VariantDir> variants_in(const fs::path& candidate) {
  std::vector<VariantDir> out;
  std::error_code ec;
  if (!fs::is_directory(candidate, ec)) return out;
  for (const auto& entry : fs::directory_iterator(candidate, ec)) {
    // Dot directories are the builder's own (`.kb`, `.staging-*` of an interrupted build), never variants.
    if (!entry.is_directory(ec) || entry.path().filename().string().front() == '.') continue;
    if (fs::is_regular_file(entry.path() / "metadata.json", ec)) {
      out.push_back({entry.path().filename().string(), entry.path()});
    }
  }
  std::sort(out.begin(), out.end(), [](const VariantDir& a, const VariantDir& b) { return a.name < b.name; });
  return out;
}

}  // namespace

util::Result<DiscoveredVariants> discover_variants(const fs::path& dir) {
  for (const fs::path& candidate : {dir / "result", dir / "build", dir}) {
    auto variants = variants_in(candidate);
    if (!variants.empty()) return DiscoveredVariants{candidate, std::move(variants)};
  }
  std::string d = dir.string();
  return util::Error(util::ErrorKind::not_found, "No build variants found in `" + d + "/result`, `" + d +
                                                     "/build`, or `" + d + "`")
      .with_hint("build the kernel first (`kernel-builder build` writes `build/<variant>/`), or name the directory "
                 "that holds the variants");
}

}  // namespace kb::metadata
