// The source files build.toml lists (`src` of [torch], [tvm-ffi] and every [kernel.*]) checked
// against the kernel directory, so that a missing file is reported at its build.toml entry by
// `check-config` and before `build` runs CMake (which would only say `add_library` failed).
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "config/diagnostic.h"
#include "util/result.h"

namespace kb::config {

// One error per listed file that is not a regular file under `kernel_dir`, located at its entry.
// `text` must parse (call after parse_build_toml succeeded); `file_name` is used in diagnostics.
std::vector<Diagnostic> missing_source_files(std::string_view text, std::string_view file_name,
                                             const std::filesystem::path& kernel_dir);

// For commands that build: reads <kernel_dir>/build.toml and fails with
// "<N> source file(s) listed in build.toml do not exist", caused by each rendered diagnostic.
util::Status check_source_files(const std::filesystem::path& kernel_dir);

}  // namespace kb::config
