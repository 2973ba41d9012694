// The user cache of kernel-builder, shared by every project and build directory:
// $XDG_CACHE_HOME/kernel-builder (else ~/.cache/kernel-builder). It holds
//   torch-pch/    precompiled torch headers (torch_pch.h)
//   deps/         header-only dependencies fetched from pinned archives (header_deps.h)
//   toolchains/   toolchain probe results, one file per interpreter (toolchain.h)
//   cmake-seeds/  CMake's compiler identification, one file per toolchain (cmake_seed.h)
//   pycache/      Python bytecode of the interpreters the builder runs (builder_python_env())
// Every entry is written atomically and checked when read: a missing, stale or corrupt entry is
// rebuilt, never an error.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>

namespace kb::builder {

// $XDG_CACHE_HOME/kernel-builder, else $HOME/.cache/kernel-builder (else /tmp/.cache/...).
std::filesystem::path user_cache_dir();

// The environment the builder adds for the interpreters it runs (the toolchain probe, the import
// check): their bytecode goes to the user cache's pycache/ (PYTHONPYCACHEPREFIX) unless the user
// chose a prefix. Never beside a source: not into a staged variant (it would ship), nor into the
// interpreter's site-packages (new __pycache__ directories there during the probe would make its
// result look unsettled, and uncached). Kept, not disabled: a torch installed without bytecode
// (uv's default) is otherwise compiled again by every interpreter, about 5 s of CPU each time
// (`import torch`: 7.6 s against 2.4 s). An empty prefix means "beside the sources": replaced.
std::map<std::string, std::string> builder_python_env();

// What changes when a file or directory is replaced or modified: "<size> <mtime in ns>" of what
// `path` points to (symlinks followed; size 0 for a directory), or "missing".
std::string file_stamp(const std::filesystem::path& path);

// Removes the least recently modified regular files named *`suffix` in `dir` beyond
// `max_entries` (a cache that never shrinks otherwise: one entry per interpreter or compiler
// ever used, temporary ones included).
void prune_oldest_files(const std::filesystem::path& dir, const std::string& suffix, std::size_t max_entries);

}  // namespace kb::builder
