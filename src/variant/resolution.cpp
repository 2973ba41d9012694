// Ranking and decision trace of the loader (see resolution.h).
#include "variant/resolution.h"

#include <algorithm>
#include <set>

#include "variant/acceptance.h"

namespace kb::variant {

namespace {

long long backend_minor(const VariantName& v) {
  return v.compute.version ? static_cast<long long>(v.compute.version->minor) : 0;
}

int kind_order(const VariantName& v) {
  switch (v.kind) {
    case VariantKind::stable_abi: return 0;
    case VariantKind::torch_arch: return 1;
    case VariantKind::tvm_ffi: return 2;
    case VariantKind::noarch: return v.is_universal() ? 4 : 3;
  }
  return 4;
}

}  // namespace

RankKey rank_key(const Decision& decision) {
  const VariantName& v = decision.variant;
  RankKey key{decision.accepted() ? 0 : 1, 2, 0, 0, 0, kind_order(v), decision.name};
  switch (v.kind) {
    case VariantKind::stable_abi: {
      MajorMinor abi = v.framework_version.value_or(MajorMinor{});
      key.f = 0;
      key.a1 = -static_cast<long long>(abi.major);
      key.a2 = -static_cast<long long>(abi.minor);
      key.b = -backend_minor(v);
      break;
    }
    case VariantKind::torch_arch:
      key.f = 1;
      key.a2 = v.abi_tag == AbiTag::none ? 0 : 1;
      key.b = -backend_minor(v);
      break;
    case VariantKind::tvm_ffi: key.b = -backend_minor(v); break;
    case VariantKind::noarch: key.b = v.is_universal() ? 1 : 0; break;
  }
  return key;
}

std::string trace_line(const Decision& decision, bool best) {
  if (!decision.accepted()) return decision.name + ": " + *decision.reason;
  return decision.name + (best ? " compatible, preferred ✅" : " compatible ✅");
}

Resolution resolve_variants(const std::vector<std::string>& candidates, const SystemDescription& system) {
  Resolution out;
  std::set<std::string> seen;
  bool any_arch = false;
  for (const auto& name : candidates) {
    if (!seen.insert(name).second) continue;
    auto parsed = VariantName::parse(name);
    if (!parsed) {
      out.invalid_names.push_back(name);
      continue;
    }
    any_arch = any_arch || parsed->is_arch();
    Decision decision{name, *parsed, rejection_reason(*parsed, system)};
    out.decisions.push_back(std::move(decision));
  }
  if (system.free_threaded && any_arch) out.warnings.emplace_back(free_threaded_warning);

  std::vector<std::pair<RankKey, size_t>> keyed;
  for (size_t i = 0; i < out.decisions.size(); ++i) keyed.emplace_back(rank_key(out.decisions[i]), i);
  std::sort(keyed.begin(), keyed.end());
  std::vector<Decision> sorted;
  for (const auto& [key, index] : keyed) sorted.push_back(std::move(out.decisions[index]));
  out.decisions = std::move(sorted);

  for (const auto& decision : out.decisions) {
    if (!decision.accepted()) continue;
    if (!out.best) out.best = decision.name;
    out.accepted.push_back(decision.name);
  }
  for (const auto& decision : out.decisions) {
    out.trace.push_back(trace_line(decision, out.best && decision.name == *out.best));
  }
  return out;
}

}  // namespace kb::variant
