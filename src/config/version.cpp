// Version parsing, normalisation and display (see version.h).
#include "config/version.h"

#include "util/strings.h"

namespace kb::config {

Version::Version(std::vector<uint64_t> components) : components_(std::move(components)) {
  while (!components_.empty() && components_.back() == 0) components_.pop_back();
}

util::Result<Version> Version::parse(std::string_view text) {
  std::string_view trimmed = util::trim(text);
  if (trimmed.empty()) return util::Error(util::ErrorKind::config, "Empty version string");
  std::vector<uint64_t> components;
  for (const auto& part : util::split(trimmed, '.')) {
    if (part.empty() || part.size() > 18) {
      return util::Error(util::ErrorKind::config, "Version must consist of numbers: " + std::string(text));
    }
    uint64_t value = 0;
    for (char c : part) {
      if (c < '0' || c > '9') {
        return util::Error(util::ErrorKind::config, "Version must consist of numbers: " + std::string(text));
      }
      value = value * 10 + static_cast<uint64_t>(c - '0');
    }
    components.push_back(value);
  }
  return Version(std::move(components));
}

std::string Version::to_string() const {
  std::string out;
  for (size_t i = 0; i < components_.size(); ++i) {
    if (i > 0) out += '.';
    out += std::to_string(components_[i]);
  }
  return out;
}

}  // namespace kb::config
