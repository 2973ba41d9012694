// ROCm arch intersection and recorded arch lists (see rocm_archs.h).
#include "variant/rocm_archs.h"

#include <algorithm>

#include "util/strings.h"

namespace kb::variant {

const std::vector<std::string>& supported_rocm_archs() {
  static const std::vector<std::string> archs = {"gfx906", "gfx908", "gfx90a", "gfx942", "gfx950",
                                                 "gfx1030", "gfx1100", "gfx1101", "gfx1200", "gfx1201"};
  return archs;
}

util::Result<std::vector<std::string>> intersect_rocm_archs(std::string_view unit, const std::vector<std::string>& requested) {
  std::vector<std::string> sorted = requested;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  const auto& supported = supported_rocm_archs();
  std::vector<std::string> result;
  std::copy_if(sorted.begin(), sorted.end(), std::back_inserter(result), [&](const std::string& arch) {
    return std::find(supported.begin(), supported.end(), arch) != supported.end();
  });
  if (result.empty()) {
    return util::Error(util::ErrorKind::config,
                       "ROCm kernel: " + std::string(unit) + ", empty set of architectures after intersection (kernel: " +
                           util::join(requested, ";") + ", supported: " + util::join(supported, ";") + ")")
        .with_hint("list at least one supported architecture in `rocm-archs`");
  }
  return result;
}

util::Result<std::vector<std::string>> unit_rocm_archs(std::string_view unit,
                                                       const std::optional<std::vector<std::string>>& requested) {
  if (!requested) return supported_rocm_archs();
  return intersect_rocm_archs(unit, *requested);
}

std::vector<std::string> rocm_offload_flags(const std::vector<std::string>& archs) {
  std::vector<std::string> flags;
  for (const auto& arch : archs) flags.push_back("--offload-arch=" + arch);
  return flags;
}

std::vector<std::string> recorded_archs(const std::vector<std::vector<std::string>>& unit_archs) {
  std::vector<std::string> all;
  for (const auto& archs : unit_archs) all.insert(all.end(), archs.begin(), archs.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

}  // namespace kb::variant
