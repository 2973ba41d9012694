// A persistent CMake build tree (build/.kb/<variant>/cmake-build) that no longer belongs where it
// is: the kernel directory was moved or copied after a build. CMake refuses such a cache ("The
// current CMakeCache.txt directory ... is different"), so the builder resets it.
#pragma once

#include <filesystem>
#include <optional>

namespace kb::builder {

// The directory recorded in `<cmake_dir>/CMakeCache.txt` (CMAKE_CACHEFILE_DIR) when it differs
// from `cmake_dir`; nullopt when there is no cache or it belongs here.
std::optional<std::filesystem::path> foreign_cmake_cache(const std::filesystem::path& cmake_dir);

}  // namespace kb::builder
