// Python dependency validation (docs/python-api.md), the registry half: which importable modules a
// variant's `python-depends` require on the detected backend. The Python layer probes them with
// importlib.util.find_spec (it is the only side that can).
#pragma once

#include <string>
#include <vector>

#include "metadata/metadata.h"
#include "util/result.h"

namespace kb::loader {

struct RequiredModule {
  std::string pkg;          // pip name, for the error message
  std::string import_name;  // module to probe
};

// Looks every `python-depends` name up in the registry's general table, then in the table of
// `detected_backend`. Unknown → `Kernel module `<python_name>` uses unsupported kernel dependency: <name>`.
util::Result<std::vector<RequiredModule>> required_modules(const metadata::Metadata& metadata,
                                                           const std::string& detected_backend);

std::string python_name(const std::string& kernel_name);  // '-' → '_'

}  // namespace kb::loader
