// find_local_variant and list_local_variants: the local side of variant selection.
#include "loader/local_kernel.h"

#include <algorithm>

#include "loader/arch_check.h"
#include "loader/kernels_minver.h"
#include "variant/variant_name.h"

namespace kb::loader {

namespace fs = std::filesystem;

std::vector<std::string> local_variant_dirs(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_directory(ec)) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

util::Result<metadata::Metadata> metadata_in(const fs::path& variant_dir) {
  return metadata::read_metadata_file((variant_dir / "metadata.json").string());
}

// The minver check of the variant chosen in `variant_dir`.
util::Result<LocalChoice> checked(LocalChoice choice, const SystemInfo& system) {
  if (system.kernels_version.empty()) return choice;
  KB_TRY_ASSIGN(auto metadata, metadata_in(choice.variant_path));
  KB_TRY(check_kernels_minver(metadata, choice.variant_path.filename().string(), system.kernels_version));
  return choice;
}

}  // namespace

LocalListing list_local_variants(const fs::path& repo_path, const SystemInfo& system) {
  std::vector<LocalListing> listings;
  for (const auto& base : {repo_path, repo_path / "build"}) {
    LocalListing listing{base, local_variant_dirs(base), {}};
    listing.selection = select_variant(listing.names, system);
    // An unreadable metadata.json stops the walk there: the listing shows what was decided.
    (void)apply_arch_check(listing.selection, system,
                           [&](const std::string& variant) { return metadata_in(base / variant); });
    if (!listing.selection.decisions.empty()) return listing;
    listings.push_back(std::move(listing));
  }
  // No variants in either: show build/ (its ignored names) where there is one.
  std::error_code ec;
  return fs::is_directory(repo_path / "build", ec) ? std::move(listings[1]) : std::move(listings[0]);
}

util::Result<LocalChoice> find_local_variant(const fs::path& repo_path, const SystemInfo& system) {
  std::optional<LocalListing> with_variants;
  for (const auto& base : {repo_path, repo_path / "build"}) {
    LocalListing listing{base, local_variant_dirs(base), {}};
    listing.selection = select_variant(listing.names, system);
    KB_TRY(apply_arch_check(listing.selection, system,
                            [&](const std::string& variant) { return metadata_in(base / variant); }));
    if (listing.selection.best) {
      return checked(LocalChoice{base / *listing.selection.best, fallback_warning(repo_path.string(), listing.selection)},
                     system);
    }
    if (!with_variants && !listing.selection.decisions.empty()) with_variants = std::move(listing);
  }
  std::error_code ec;
  if (fs::is_regular_file(repo_path / "metadata.json", ec)) {
    // A variant directory named by the caller: it must still run on the device.
    Selection single;
    single.best = repo_path.filename().string();
    single.candidates = {*single.best};
    KB_TRY(apply_arch_check(single, system, [&](const std::string&) { return metadata_in(repo_path); }));
    if (!single.best) return arch_error(repo_path.string(), single, system);
    return checked(LocalChoice{repo_path, ""}, system);
  }
  if (!fs::exists(repo_path, ec)) {
    return util::Error(util::ErrorKind::not_found, "Could not find kernel in " + repo_path.string());
  }
  LocalListing listing = with_variants ? std::move(*with_variants) : list_local_variants(repo_path, system);
  auto error = no_variant_error(VariantSource{repo_path.string(), true}, listing.names, listing.selection, system);
  if (!with_variants && variant::VariantName::parse(repo_path.filename().string())) {
    error.hints.push_back("`" + repo_path.string() + "` is named like a variant but has no `metadata.json`: "
                          "rebuild it with `kernel-builder build`");
  }
  return error;
}

}  // namespace kb::loader
