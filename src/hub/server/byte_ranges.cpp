// Range planning (byte_ranges.h).
#include "hub/server/byte_ranges.h"

#include <algorithm>

namespace kb::hub::server {

RangePlan plan_byte_ranges(const std::vector<RangeSpec>& specs, uint64_t size, size_t max_ranges) {
  RangePlan plan;
  if (specs.empty() || size == 0) return plan;
  std::vector<ByteSpan> spans;
  for (auto [from, to] : specs) {
    if (from < 0) {  // the last `to` bytes
      if (to <= 0) continue;
      uint64_t length = std::min<uint64_t>(static_cast<uint64_t>(to), size);
      spans.push_back({size - length, length});
      continue;
    }
    uint64_t first = static_cast<uint64_t>(from);
    if (first >= size) continue;  // starts past the end
    uint64_t last = to < 0 ? size - 1 : std::min<uint64_t>(static_cast<uint64_t>(to), size - 1);
    spans.push_back({first, last - first + 1});
  }
  if (spans.empty()) {
    plan.kind = RangePlan::Kind::unsatisfiable;
    return plan;
  }
  std::sort(spans.begin(), spans.end(), [](const ByteSpan& a, const ByteSpan& b) { return a.first < b.first; });
  for (const ByteSpan& span : spans) {
    if (!plan.spans.empty()) {
      ByteSpan& last = plan.spans.back();
      if (span.first <= last.first + last.length) {  // overlapping or adjacent: one range
        last.length = std::max(last.first + last.length, span.first + span.length) - last.first;
        continue;
      }
    }
    plan.spans.push_back(span);
  }
  if (plan.spans.size() > max_ranges) {
    plan.spans.clear();
    return plan;  // whole
  }
  plan.kind = RangePlan::Kind::partial;
  return plan;
}

}  // namespace kb::hub::server
