// The CUDA/ROCm architecture rules and the candidate walk of arch_check.h.
#include "loader/arch_check.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "util/strings.h"

namespace kb::loader {
namespace {

constexpr std::string_view kPtx = "+PTX";

std::optional<int> small_number(std::string_view digits) {
  if (digits.empty() || digits.size() > 6) return std::nullopt;
  int value = 0;
  for (char c : digits) {
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// "8.6" → (8, 6); nullopt unless two dot-separated digit runs.
std::optional<std::pair<int, int>> capability(std::string_view text) {
  auto dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto major = small_number(text.substr(0, dot));
  auto minor = small_number(text.substr(dot + 1));
  if (!major || !minor) return std::nullopt;
  return std::make_pair(*major, *minor);
}

std::string backend_device(const SystemInfo& system) {
  return system.detected_backend.empty() ? system.backend : system.detected_backend;
}

// "CUDA capability 8.0", "ROCm architecture gfx90a".
std::string device_text(const SystemInfo& system) {
  if (backend_device(system) == "rocm") return "ROCm architecture " + system.device_arch;
  return "CUDA capability " + system.device_arch;
}

}  // namespace

std::optional<bool> cuda_arch_runs_on(std::string_view arch, int major, int minor) {
  bool ptx = util::ends_with(arch, kPtx);
  if (ptx) arch.remove_suffix(kPtx.size());
  char suffix = 0;
  if (!arch.empty() && (arch.back() == 'a' || arch.back() == 'f')) {
    suffix = arch.back();
    arch.remove_suffix(1);
  }
  auto built = capability(arch);
  if (!built) return std::nullopt;
  auto device = std::make_pair(major, minor);
  if (suffix == 'a') return device == *built;
  if (suffix == 'f') return major == built->first && minor >= built->second;
  if (ptx) return device >= *built;
  return major == built->first && minor >= built->second;
}

bool archs_cover_device(config::Backend backend, const std::vector<std::string>& archs,
                        const std::string& device_arch) {
  if (archs.empty() || device_arch.empty()) return true;
  if (backend == config::Backend::cuda) {
    auto device = capability(device_arch);
    if (!device) return true;
    bool any_parsed = false;
    for (const auto& arch : archs) {
      auto runs = cuda_arch_runs_on(arch, device->first, device->second);
      if (!runs) continue;
      any_parsed = true;
      if (*runs) return true;
    }
    return !any_parsed;
  }
  if (backend == config::Backend::rocm) {
    std::string gfx = device_arch.substr(0, device_arch.find(':'));
    return std::find(archs.begin(), archs.end(), gfx) != archs.end();
  }
  return true;
}

util::Status apply_arch_check(Selection& selection, const SystemInfo& system, const CandidateMetadata& metadata_of) {
  if (system.device_arch.empty() || selection.fallback_from || !selection.best) return {};
  const std::string device = backend_device(system);
  for (const auto& candidate : selection.candidates) {
    KB_TRY_ASSIGN(auto metadata, metadata_of(candidate));
    // The device arch is that of the detected backend's device: another backend's archs say nothing.
    bool same_backend = std::string(config::to_string(metadata.backend)) == device;
    if (!same_backend || archs_cover_device(metadata.backend, metadata.archs, system.device_arch)) {
      selection.best = candidate;
      return {};
    }
    selection.arch_skipped.push_back({candidate, metadata.archs});
    for (auto& decision : selection.decisions) {
      if (decision.variant != candidate) continue;
      decision.accepted = false;
      decision.reason = "built for " + util::join(metadata.archs, ", ") + ", not for this device's " +
                        device_text(system);
    }
  }
  selection.best.reset();
  return {};
}

util::Error arch_error(const std::string& kernel, const Selection& selection, const SystemInfo& system) {
  std::vector<std::string> lines;
  for (const auto& skip : selection.arch_skipped) {
    lines.push_back("`" + skip.variant + "`: " + util::join(skip.archs, ", "));
  }
  util::Error error(util::ErrorKind::generic,
                    "Kernel " + kernel + " has no variant built for this device (" + device_text(system) +
                        "); the variants for this system declare these architectures:\n\n" +
                        util::join(lines, "\n"));
  error.hints.push_back(
      "pass `check_arch=False` to skip the architecture check and load `" + selection.arch_skipped.front().variant +
      "`: declared architectures can be incomplete (a kernel with a Triton fallback), but a kernel that does not "
      "support the device may fail or crash the process");
  return error;
}

}  // namespace kb::loader
