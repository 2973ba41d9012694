// `Version`: dotted non-negative integers, normalised by dropping trailing zeros
// (docs/build-toml.md). Used for Torch/CUDA bounds, stable-ABI targets and toolkit versions.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kb::config {

class Version {
 public:
  Version() = default;
  explicit Version(std::vector<uint64_t> components);

  // Errors: `Empty version string`, `Version must consist of numbers: <input>`.
  static util::Result<Version> parse(std::string_view text);

  const std::vector<uint64_t>& components() const { return components_; }
  uint64_t major() const { return components_.empty() ? 0 : components_[0]; }
  uint64_t minor() const { return components_.size() < 2 ? 0 : components_[1]; }

  std::string to_string() const;  // normalised: "2.0" -> "2"

  friend bool operator==(const Version& a, const Version& b) { return a.components_ == b.components_; }
  friend std::strong_ordering operator<=>(const Version& a, const Version& b) {
    return a.components_ <=> b.components_;  // lexicographic; a prefix is smaller
  }

 private:
  std::vector<uint64_t> components_;  // normalised: no trailing zeros
};

}  // namespace kb::config
