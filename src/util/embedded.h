// Files baked into the binary at build time (cmake/Embed.cmake): templates and data.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace kb::util {

struct EmbeddedFile {
  std::string_view path;  // relative to the embedded directory, '/' separated
  std::string_view content;
};

// The content of the file at `path` among `files` (an `embedded_files()` table); nothing when it
// is not there.
std::optional<std::string_view> find_embedded(const std::vector<EmbeddedFile>& files, std::string_view path);

}  // namespace kb::util
