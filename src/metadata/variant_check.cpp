// The check-builds rules for one variant (see variant_check.h).
#include "metadata/variant_check.h"

#include "metadata/digest.h"

namespace kb::metadata {

namespace fs = std::filesystem;

util::Result<Metadata> check_variant(const VariantDir& variant, const VariantCheckOptions& options) {
  fs::path file = variant.path / "metadata.json";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    return util::Error(util::ErrorKind::not_found, "Metadata file not found for variant at " + variant.path.string());
  }
  auto parsed = read_metadata_file(file.string());
  if (!parsed) return std::move(parsed).error();
  if (!parsed->digest) {
    if (!options.require_digest) return parsed;
    return util::Error(util::ErrorKind::integrity, "Variant `" + variant.name + "` records no digest")
        .with_cause("its metadata.json has no `digest`, so which files belong to the build cannot be checked")
        .with_hint("Rebuild the variant with `kernel-builder build`, which records the digest; or, once you have "
                   "checked that its directory holds only the built files, record it with `kernel-builder hash`.");
  }
  auto verified = verify_digest(variant.path, *parsed->digest);
  if (!verified) return std::move(verified).error().context("Variant `" + variant.name + "` failed the digest check");
  return parsed;
}

}  // namespace kb::metadata
