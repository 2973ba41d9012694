// `MajorMinor`: the two-component versions that variant names carry (Torch 2.12, CUDA 12.6,
// oneAPI 2025.3, TVM-FFI 0.1). Printed like Python prints them in loader messages ("13.0").
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/version.h"

namespace kb::variant {

struct MajorMinor {
  uint64_t major = 0;
  uint64_t minor = 0;

  // "2.10", "13.0": never drops the minor, unlike config::Version.
  std::string to_string() const;
  // First two components of `version`; a one-component version gets minor 0 (docs/variants.md).
  static MajorMinor from(const config::Version& version);
  // Parses the leading "<major>[.<minor>]" of text such as "2.12.0+cu126", "7.1.25424-1a2b",
  // "15.7.1" or "0.1.9-rc1"; nullopt when it does not start with a number.
  static std::optional<MajorMinor> parse_prefix(std::string_view text);

  friend bool operator==(const MajorMinor&, const MajorMinor&) = default;
  friend auto operator<=>(const MajorMinor&, const MajorMinor&) = default;
};

// "None" for a missing value, as Python would print it.
std::string python_repr(const std::optional<MajorMinor>& value);
std::string python_repr(const std::optional<bool>& value);

}  // namespace kb::variant
