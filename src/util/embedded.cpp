// Lookup in the tables of embedded files (see embedded.h).
#include "util/embedded.h"

#include <algorithm>

namespace kb::util {

std::optional<std::string_view> find_embedded(const std::vector<EmbeddedFile>& files, std::string_view path) {
  auto it = std::find_if(files.begin(), files.end(), [&](const EmbeddedFile& file) { return file.path == path; });
  if (it == files.end()) return std::nullopt;
  return it->content;
}

}  // namespace kb::util
