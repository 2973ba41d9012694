// The user cache of kernel-builder, shared by every project and build directory:
// $XDG_CACHE_HOME/kernel-builder (else ~/.cache/kernel-builder). It holds
//   torch-pch/    precompiled torch headers (torch_pch.h)
//   deps/         header-only dependencies fetched from pinned archives (header_deps.h)
//   toolchains/   toolchain probe results, one file per interpreter (toolchain.h)
//   cmake-seeds/  CMake's compiler identification, one file per toolchain (cmake_seed.h)
//   pycache/      Python bytecode of the import check's interpreter (PYTHONPYCACHEPREFIX, unless set)
// Every entry is written atomically and checked when read: a missing, stale or corrupt entry is
// rebuilt, never an error.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace kb::builder {

// $XDG_CACHE_HOME/kernel-builder, else $HOME/.cache/kernel-builder (else /tmp/.cache/...).
std::filesystem::path user_cache_dir();

// What changes when a file or directory is replaced or modified: "<size> <mtime in ns>" of what
// `path` points to (symlinks followed; size 0 for a directory), or "missing".
std::string file_stamp(const std::filesystem::path& path);

// Removes the least recently modified regular files named *`suffix` in `dir` beyond
// `max_entries` (a cache that never shrinks otherwise: one entry per interpreter or compiler
// ever used, temporary ones included).
void prune_oldest_files(const std::filesystem::path& dir, const std::string& suffix, std::size_t max_entries);

}  // namespace kb::builder
