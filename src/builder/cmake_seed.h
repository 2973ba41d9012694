// CMake's compiler identification, kept per toolchain in the user cache (user_cache.h:
// `cmake-seeds/`), so that the configure of a clean build directory does not identify the
// compilers again. Identification compiles and runs test programs (for CUDA several nvcc runs: a
// few seconds) and gives the same answer for the same compilers, CMake and environment.
//
// How: after a configure of an empty build directory, the builder saves what identification wrote
// there: CMakeFiles/<cmake version>/CMakeSystem.cmake and CMake<LANG>Compiler.cmake, and the cache
// entries of the compilers and binutils it found (CMAKE_CXX_COMPILER, CMAKE_AR, CMAKE_OBJCOPY, ...,
// `seed_cache_entries`). Before the next configure of an empty build directory with the same
// identity it writes them back; CMake then loads them as it does when it re-configures a tree it
// configured before (CMAKE_PLATFORM_INFO_INITIALIZED), so the outcome is that of a re-configure.
//
// When a seed applies: its identity (`cmake_seed_identity`: the languages, the configure options
// other than the project's own KB_* ones, the compiler-related environment variables, the kernel
// release) is the same, and every file it refers to is unchanged (stamps of the cmake binary, the
// compilers, nvcc, the linker and binutils named in the identification files). Anything else — a
// missing, corrupt or stale entry — means a normal configure, which then rewrites the entry. A
// configure that fails with a seed is run again without it (variant_build.cpp).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "util/result.h"

namespace kb::builder {

// What a seed depends on besides the files it stamps (pure): the configure command line minus
// -S/-B and -DKB_* (the project's own paths), the languages, the variables of `environment` that
// change what the compilers are or find (PATH, CC/CXX/CUDACXX/CUDAHOSTCXX, *FLAGS, LIBRARY_PATH,
// CPATH, CMAKE_*, CUDA*, NVCC_*, locale, ...) and `host` (the kernel release CMakeSystem.cmake
// records).
std::string cmake_seed_identity(const std::vector<std::string>& configure, const std::string& languages,
                                const std::map<std::string, std::string>& environment, const std::string& host);

// The process environment with `overrides` applied (what a child process started with them sees).
std::map<std::string, std::string> effective_environment(const std::map<std::string, std::string>& overrides);

// `uname -r`.
std::string host_release();

// The lines of a CMakeCache.txt that compiler identification wrote (pure): the compilers, the
// binutils, CMAKE_UNAME, CMAKE_EXECUTABLE_FORMAT, CMAKE_PLATFORM_INFO_INITIALIZED and their
// -ADVANCED markers.
std::vector<std::string> seed_cache_entries(const std::string& cmake_cache);

// The absolute paths named in `set(NAME "value")` lines of a CMake identification file (pure;
// lists split at `;`): compilers, linker, binutils, and directories.
std::vector<std::string> referenced_paths(const std::string& cmake_file);

// Writes the seed of `identity` into the empty build directory `cmake_dir`. Returns the seed file
// used, or an empty path when there is no seed that applies (nothing is written then).
std::filesystem::path apply_cmake_seed(const std::filesystem::path& seeds_dir, const std::string& identity,
                                       const std::filesystem::path& cmake_dir);

// After a configure of an empty `cmake_dir` that was not seeded: records its identification under
// `identity` (atomically). An error only when the entry cannot be written; a build directory
// without identification files records nothing.
util::Status save_cmake_seed(const std::filesystem::path& seeds_dir, const std::string& identity,
                             const std::filesystem::path& cmake_dir);

// Removes the seed of `identity` (after a seeded configure failed).
void forget_cmake_seed(const std::filesystem::path& seeds_dir, const std::string& identity);

}  // namespace kb::builder
