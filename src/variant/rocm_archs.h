// ROCm architecture selection (docs/variants.md) and the archs recorded in metadata.json.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kb::variant {

// The supported gfx targets, in the documented order.
const std::vector<std::string>& supported_rocm_archs();

// Exact-match intersection: `requested` deduped and string-sorted, keeping supported entries.
// Errors with `ROCm kernel: <unit>, empty set of architectures after intersection (kernel: <R>, supported: <S>)`.
util::Result<std::vector<std::string>> intersect_rocm_archs(std::string_view unit, const std::vector<std::string>& requested);

// A unit's archs: all supported ones when it requests none, else the intersection.
util::Result<std::vector<std::string>> unit_rocm_archs(std::string_view unit,
                                                       const std::optional<std::vector<std::string>>& requested);

// One `--offload-arch=<a>` per arch.
std::vector<std::string> rocm_offload_flags(const std::vector<std::string>& archs);

// metadata.json `backend.archs`: the union of all compiled units' arch strings (suffixes kept),
// deduplicated and sorted byte-wise ("10.0" before "7.5").
std::vector<std::string> recorded_archs(const std::vector<std::vector<std::string>>& unit_archs);

}  // namespace kb::variant
