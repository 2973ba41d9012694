// Header-only build dependencies of kernel units (build-toml.md `depends`): `cutlass_X_Y`
// (CUDA), `sycl_tla` (XPU), `metal-cpp` (Metal). The builder does not download them; it takes a
// source tree from the environment (CUTLASS_SRC_DIR, SYCL_TLA_SRC_DIR, METAL_CPP_SRC_DIR) or from
// the shared dependency cache (`$XDG_CACHE_HOME/kernel-builder/deps/<name>-<version>`, a
// directory with `include/`), and fails with an error naming those options otherwise.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "config/model.h"
#include "util/result.h"

namespace kb::build {

struct HeaderDependencies {
  std::vector<std::filesystem::path> include_dirs;
  std::vector<std::string> notes;  // e.g. a CUTLASS_SRC_DIR whose version differs from the one named
};

// Include directories for the units of `backend`. `env` stands for the process environment
// (getenv) so tests can pass their own; `cache_root` is the shared dependency cache.
util::Result<HeaderDependencies> resolve_header_dependencies(const config::BuildConfig& config, config::Backend backend,
                                                             const std::map<std::string, std::string>& env,
                                                             const std::filesystem::path& cache_root);

// `$XDG_CACHE_HOME/kernel-builder/deps`, else `$HOME/.cache/kernel-builder/deps`.
std::filesystem::path default_dependency_cache();

// The variables resolve_header_dependencies reads, from this process's environment.
std::map<std::string, std::string> dependency_environment();

}  // namespace kb::build
