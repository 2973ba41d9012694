// The `check-builds` rules for one built variant (docs/cli.md `check-builds`): its metadata.json exists
// and parses, and the digest it records matches the directory. `check-builds` and `upload` both
// run exactly this; `upload` additionally requires a digest (docs/hub-security.md).
#pragma once

#include "metadata/discovery.h"
#include "metadata/metadata.h"
#include "util/result.h"

namespace kb::metadata {

struct VariantCheckOptions {
  // Refuse a variant whose metadata.json records no digest (the spec lets check-builds accept it;
  // upload cannot then know which files were built).
  bool require_digest = false;
};

// The parsed metadata of a variant that passes, else the first rule it breaks:
// `Metadata file not found for variant at <path>`, `Failed to parse metadata: <path>`,
// ``Variant `<name>` records no digest`` or ``Variant `<name>` failed the digest check`` (caused by
// verify_digest's violations).
util::Result<Metadata> check_variant(const VariantDir& variant, const VariantCheckOptions& options = {});

}  // namespace kb::metadata
