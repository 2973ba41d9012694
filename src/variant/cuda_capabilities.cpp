// CUDA capability defaults, loose intersection and gencode flags (see cuda_capabilities.h).
#include "variant/cuda_capabilities.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <set>

#include "util/strings.h"

namespace kb::variant {

namespace {

constexpr std::string_view ptx_suffix = "+PTX";

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

std::string strip_ptx(std::string_view cap) {
  if (util::ends_with(cap, ptx_suffix)) cap.remove_suffix(ptx_suffix.size());
  return std::string(cap);
}

bool has_family_suffix(std::string_view cap) {
  return !cap.empty() && (cap.back() == 'a' || cap.back() == 'f');
}

// Numeric (major, minor) of "8.6", "9.0a", "10" (minor 0); nullopt if it does not start with digits.
std::optional<std::pair<uint64_t, uint64_t>> numeric(std::string_view cap) {
  auto parse_run = [&](size_t& pos) -> std::optional<uint64_t> {
    size_t start = pos;
    uint64_t v = 0;
    while (pos < cap.size() && is_digit(cap[pos]) && pos - start < 18) v = v * 10 + static_cast<uint64_t>(cap[pos++] - '0');
    if (pos == start) return std::nullopt;
    return v;
  };
  size_t pos = 0;
  auto major = parse_run(pos);
  if (!major) return std::nullopt;
  uint64_t minor = 0;
  if (pos < cap.size() && cap[pos] == '.') {
    ++pos;
    minor = parse_run(pos).value_or(0);
  }
  return std::make_pair(*major, minor);
}

bool version_le(std::string_view a, std::string_view b) {
  auto na = numeric(a), nb = numeric(b);
  if (!na || !nb) return false;
  return *na <= *nb;
}

bool same_major(std::string_view a, std::string_view b) {
  auto na = numeric(a), nb = numeric(b);
  return na && nb && na->first == nb->first;
}

void sort_unique_natural(std::vector<std::string>& list) {
  std::sort(list.begin(), list.end(), [](const std::string& a, const std::string& b) { return natural_less(a, b); });
  list.erase(std::unique(list.begin(), list.end()), list.end());
}

}  // namespace

bool natural_less(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      size_t si = i, sj = j;
      while (i < a.size() && is_digit(a[i])) ++i;
      while (j < b.size() && is_digit(b[j])) ++j;
      std::string_view ra = a.substr(si, i - si), rb = b.substr(sj, j - sj);
      while (ra.size() > 1 && ra.front() == '0') ra.remove_prefix(1);
      while (rb.size() > 1 && rb.front() == '0') rb.remove_prefix(1);
      if (ra.size() != rb.size()) return ra.size() < rb.size();
      if (ra != rb) return ra < rb;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

std::vector<std::string> default_cuda_capabilities(const config::Version& nvcc) {
  if (nvcc >= config::Version({13, 0})) {
    return {"7.5", "8.0", "8.6", "8.7", "8.9", "9.0", "10.0", "11.0", "12.0", "12.1+PTX"};
  }
  if (nvcc >= config::Version({12, 8})) {
    return {"7.0", "7.2", "7.5", "8.0", "8.6", "8.7", "8.9", "9.0", "10.0", "10.1", "12.0+PTX"};
  }
  return {"7.0", "7.2", "7.5", "8.0", "8.6", "8.7", "8.9", "9.0+PTX"};
}

std::vector<std::string> cuda_extra_capabilities(const config::Version& nvcc) {
  // Capability → the first nvcc that compiles for it (`nvcc --list-gpu-arch`).
  static const std::pair<const char*, config::Version> table[] = {
      {"10.3", config::Version({12, 9})},
      {"12.1", config::Version({12, 9})},
  };
  std::vector<std::string> out;
  for (const auto& [capability, first_nvcc] : table) {
    if (nvcc >= first_nvcc) out.emplace_back(capability);
  }
  return out;
}

std::vector<std::string> cuda_target_capabilities(const config::Version& nvcc) {
  std::vector<std::string> targets;
  for (const auto& cap : default_cuda_capabilities(nvcc)) targets.push_back(strip_ptx(cap));
  for (const auto& cap : cuda_extra_capabilities(nvcc)) targets.push_back(cap);
  sort_unique_natural(targets);
  return targets;
}

util::Result<std::vector<std::string>> intersect_cuda_capabilities(std::string_view unit,
                                                                   const std::vector<std::string>& requested,
                                                                   const std::vector<std::string>& targets) {
  // Step 1: strip +PTX (remembering the bases), dedupe.
  std::set<std::string> ptx;
  std::vector<std::string> remaining;
  for (const auto& cap : requested) {
    std::string base = strip_ptx(cap);
    if (base.size() != cap.size()) ptx.insert(base);
    if (std::find(remaining.begin(), remaining.end(), base) == remaining.end()) remaining.push_back(base);
  }
  // Step 2: arch-specific / family entries consume their exact base target.
  std::vector<std::string> result;
  std::vector<std::string> open_targets = targets;
  std::vector<std::string> plain;
  for (const auto& cap : remaining) {
    if (!has_family_suffix(cap)) {
      plain.push_back(cap);
      continue;
    }
    std::string base = cap.substr(0, cap.size() - 1);
    auto it = std::find(open_targets.begin(), open_targets.end(), base);
    if (it != open_targets.end()) {
      open_targets.erase(it);
      result.push_back(cap);
    }
  }
  // Step 3: for each remaining target, the highest requested entry not above it that shares its
  // major (or carries PTX, which runs on newer majors too).
  sort_unique_natural(plain);
  for (const auto& target : open_targets) {
    std::optional<std::string> taken;
    for (const auto& cap : plain) {
      if (!version_le(cap, target)) break;
      if (ptx.count(cap) || same_major(cap, target)) taken = cap;
    }
    if (taken) result.push_back(*taken);
  }
  // Step 4: dedupe, restore +PTX, sort.
  sort_unique_natural(result);
  for (auto& cap : result) {
    if (ptx.count(cap)) cap += ptx_suffix;
  }
  sort_unique_natural(result);
  if (result.empty()) {
    return util::Error(util::ErrorKind::config,
                       "CUDA kernel: " + std::string(unit) + ", empty set of capabilities after intersection (kernel: " +
                           util::join(requested, ";") + ", supported: " + util::join(targets, ";") + ")")
        .with_hint("list at least one capability that the CUDA toolkit supports in `cuda-capabilities`");
  }
  return result;
}

util::Result<std::vector<std::string>> unit_cuda_capabilities(std::string_view unit,
                                                              const std::optional<std::vector<std::string>>& requested,
                                                              const config::Version& nvcc) {
  if (!requested) return default_cuda_capabilities(nvcc);
  return intersect_cuda_capabilities(unit, *requested, cuda_target_capabilities(nvcc));
}

bool split_compile_reproducible(const config::Version& nvcc, const std::vector<std::string>& capabilities) {
  if (nvcc.major() != 13) return false;
  return std::all_of(capabilities.begin(), capabilities.end(), [](const std::string& cap) {
    auto number = numeric(cap);
    return number && number->first < 10;
  });
}

util::Result<std::vector<std::string>> cuda_gencode_flags(const std::vector<std::string>& capabilities) {
  std::vector<std::string> flags;
  for (const auto& cap : capabilities) {
    std::string base = strip_ptx(cap);
    bool with_ptx = base.size() != cap.size();
    std::string suffix;
    std::string number = base;
    if (has_family_suffix(number)) {
      suffix = number.substr(number.size() - 1);
      number.pop_back();
    }
    auto dot = number.find('.');
    std::string major = number.substr(0, dot);
    std::string minor = dot == std::string::npos ? "" : number.substr(dot + 1);
    auto all_digits = [](const std::string& s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_digit); };
    if (!all_digits(major) || !all_digits(minor)) {
      return util::Error(util::ErrorKind::config, "Invalid CUDA capability `" + cap + "`")
          .with_hint("capabilities look like `8.0`, `9.0a`, `10.0f` or `8.0+PTX`");
    }
    std::string arch = major + minor + suffix;
    flags.push_back("-gencode");
    flags.push_back("arch=compute_" + arch + ",code=sm_" + arch);
    if (with_ptx) {
      flags.push_back("-gencode");
      flags.push_back("arch=compute_" + arch + ",code=compute_" + arch);
    }
  }
  return flags;
}

}  // namespace kb::variant
