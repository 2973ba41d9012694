// Detecting a moved or copied CMake build tree (see cmake_cache.h).
#include "builder/cmake_cache.h"

#include <string>

#include "util/fs.h"
#include "util/strings.h"

namespace kb::builder {

namespace fs = std::filesystem;

std::optional<fs::path> foreign_cmake_cache(const fs::path& cmake_dir) {
  auto text = util::read_file(cmake_dir / "CMakeCache.txt");
  if (!text) return std::nullopt;
  static const std::string key = "CMAKE_CACHEFILE_DIR:INTERNAL=";
  for (const auto& line : util::split(*text, '\n')) {
    if (!util::starts_with(line, key)) continue;
    fs::path recorded = std::string(util::trim(line.substr(key.size())));
    std::error_code ec;
    if (fs::equivalent(recorded, cmake_dir, ec)) return std::nullopt;
    return recorded;
  }
  return std::nullopt;
}

}  // namespace kb::builder
