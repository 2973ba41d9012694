// The names that the sources of our libraries use unqualified: std::filesystem as `fs` and the
// error types of util/result.h. They are declared in namespace kb, so every library's namespace
// (kb::builder, kb::abi, ...) sees them. Include it from .cpp files only: a header including it
// would hand these names to every file that includes that header.
#pragma once

#include <filesystem>

#include "util/result.h"

namespace kb {

namespace fs = std::filesystem;
using util::Error;
using util::ErrorKind;
using util::Result;

}  // namespace kb
