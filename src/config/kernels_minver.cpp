// required_kernels_version (kernels_minver.h).
#include "config/kernels_minver.h"

#include "config/python_registry.h"

namespace kb::config {

std::optional<Version> required_kernels_version(const BuildConfig& config, Backend backend) {
  std::optional<Version> required = config.general.kernels_minver;
  auto raise = [&](const Version& version) {
    if (!required || *required < version) required = version;
  };
  if (!kernel_depends_for(config, backend).empty()) raise(Version({0, 17, 0}));
  return required;
}

std::string kernels_version_text(const Version& version) {
  std::vector<uint64_t> components = version.components();
  while (components.size() < 3) components.push_back(0);
  std::string text;
  for (size_t i = 0; i < components.size(); ++i) text += (i == 0 ? "" : ".") + std::to_string(components[i]);
  return text;
}

}  // namespace kb::config
