// Which bytes of a file a Range request gets (docs/hub-security.md, "Ranges"): a pure plan the
// server core performs. Specs past the end are dropped, ends clamped to the file, overlapping or
// adjacent ranges merged, and a request left with more than `max_ranges` ranges is answered with
// the whole file (RFC 9110 §14.2 lets a server ignore a Range), so what is sent is never more
// than the file. 416 only when every spec starts past the end; a zero-byte file ignores Range.
#pragma once

#include <cstdint>
#include <vector>

#include "hub/server/http_message.h"

namespace kb::hub::server {

inline constexpr size_t kMaxByteRanges = 8;

struct ByteSpan {
  uint64_t first = 0;
  uint64_t length = 0;
  bool operator==(const ByteSpan&) const = default;
};

struct RangePlan {
  enum class Kind { whole, partial, unsatisfiable };
  Kind kind = Kind::whole;
  std::vector<ByteSpan> spans;  // partial: sorted, disjoint, not adjacent, at most max_ranges
};

RangePlan plan_byte_ranges(const std::vector<RangeSpec>& specs, uint64_t size, size_t max_ranges = kMaxByteRanges);

}  // namespace kb::hub::server
