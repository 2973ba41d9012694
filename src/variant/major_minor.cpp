// MajorMinor parsing and Python-style printing (see major_minor.h).
#include "variant/major_minor.h"

#include <cctype>

namespace kb::variant {

namespace {

// Reads a run of decimal digits at `pos`; nullopt if there is none or it overflows.
std::optional<uint64_t> read_number(std::string_view text, size_t& pos) {
  size_t start = pos;
  uint64_t value = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    if (value > (UINT64_MAX - 9) / 10) return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(text[pos] - '0');
    ++pos;
  }
  if (pos == start) return std::nullopt;
  return value;
}

}  // namespace

std::string MajorMinor::to_string() const { return std::to_string(major) + "." + std::to_string(minor); }

MajorMinor MajorMinor::from(const config::Version& version) { return {version.major(), version.minor()}; }

std::optional<MajorMinor> MajorMinor::parse_prefix(std::string_view text) {
  size_t pos = 0;
  auto major = read_number(text, pos);
  if (!major) return std::nullopt;
  MajorMinor out{*major, 0};
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    if (auto minor = read_number(text, pos)) out.minor = *minor;
  }
  return out;
}

std::string python_repr(const std::optional<MajorMinor>& value) {
  return value ? value->to_string() : "None";
}

std::string python_repr(const std::optional<bool>& value) {
  if (!value) return "None";
  return *value ? "True" : "False";
}

}  // namespace kb::variant
