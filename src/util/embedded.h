// Files baked into the binary at build time (cmake/Embed.cmake): templates and data.
#pragma once

#include <string_view>
#include <vector>

namespace kb::util {

struct EmbeddedFile {
  std::string_view path;  // relative to the embedded directory, '/' separated
  std::string_view content;
};

}  // namespace kb::util
