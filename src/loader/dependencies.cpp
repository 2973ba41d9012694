// Registry lookups for python-depends (the shared registry of src/config).
#include "loader/dependencies.h"

#include <algorithm>

#include "config/python_registry.h"

namespace kb::loader {

std::string python_name(const std::string& kernel_name) {
  std::string out = kernel_name;
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

util::Result<std::vector<RequiredModule>> required_modules(const metadata::Metadata& metadata,
                                                           const std::string& detected_backend) {
  const auto& registry = config::PythonRegistry::embedded();
  auto backend = config::parse_backend(detected_backend);
  std::vector<RequiredModule> out;
  for (const auto& name : metadata.python_depends) {
    const config::PythonDependency* dep = registry.find_general(name);
    if (dep == nullptr && backend && registry.has_backend_table(*backend)) dep = registry.find_backend(*backend, name);
    if (dep == nullptr) {
      return util::Error(util::ErrorKind::usage, "Kernel module `" + python_name(metadata.name) +
                                                     "` uses unsupported kernel dependency: " + name);
    }
    for (const auto& package : dep->python) {
      if (package.import_name) out.push_back(RequiredModule{package.pkg, *package.import_name});
    }
  }
  return out;
}

}  // namespace kb::loader
