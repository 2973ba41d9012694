// Loader variant resolution (docs/variants.md) as one pure function: parse every candidate
// name, accept or reject it against the system, rank all decisions, pick the best, and explain
// every decision in a trace.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "variant/system.h"
#include "variant/variant_name.h"

namespace kb::variant {

struct Decision {
  std::string name;                   // the directory name as listed
  VariantName variant;
  std::optional<std::string> reason;  // nullopt: accepted
  bool accepted() const { return !reason.has_value(); }
};

struct Resolution {
  std::optional<std::string> best;         // first accepted decision, if any
  std::vector<Decision> decisions;         // every valid candidate, sorted by rank
  std::vector<std::string> accepted;       // accepted names, in rank order
  std::vector<std::string> trace;          // one line per decision
  std::vector<std::string> invalid_names;  // candidates that are not variant names, input order
  std::vector<std::string> warnings;       // e.g. the free-threaded warning
};

// The ranking key (d, f, a1, a2, b) followed by the deterministic tie-break (kind order
// stable, Torch, TVM-FFI, noarch, universal; then name). Exposed for tests.
struct RankKey {
  int d, f;
  long long a1, a2, b;
  int kind_order;
  std::string name;
  friend auto operator<=>(const RankKey&, const RankKey&) = default;
};
RankKey rank_key(const Decision& decision);

// Resolves `candidates` (names under build/) for `system`. Duplicate names count once.
Resolution resolve_variants(const std::vector<std::string>& candidates, const SystemDescription& system);

// "<name> compatible, preferred ✅", "<name> compatible ✅" or "<name>: <reason>".
std::string trace_line(const Decision& decision, bool best);

}  // namespace kb::variant
