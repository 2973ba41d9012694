// Unpacking one directory of a zip archive (a PyPI wheel) with minizip: only regular files
// under the named directory are written, at their paths relative to it; any entry of that
// directory that would land outside the destination (absolute, `..`) or is a symbolic link
// refuses the whole archive. minizip checks each file's CRC-32 as it is read.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "util/result.h"

namespace kb::builder {

// Extracts the files under `directory/` of `archive` into `destination` (created); returns how
// many were written.
util::Result<std::size_t> extract_zip_directory(const std::filesystem::path& archive, const std::string& directory,
                                                const std::filesystem::path& destination);

}  // namespace kb::builder
