// Header-only build dependencies of kernel units (docs/build-toml.md `depends`): `cutlass_X_Y`
// (CUDA), `sycl_tla` (XPU), `metal-cpp` (Metal). The headers come from a source tree named by the
// environment (CUTLASS_SRC_DIR, SYCL_TLA_SRC_DIR, METAL_CPP_SRC_DIR), else from the shared
// dependency cache (`$XDG_CACHE_HOME/kernel-builder/deps/<name>-<version>`, a directory with
// `include/`), else from the pinned archive of header_archives.h, fetched into that cache
// (header_fetch.h) unless downloads are off; otherwise the build fails with an error naming
// those options.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "builder/header_fetch.h"
#include "config/model.h"
#include "util/result.h"

namespace kb::builder {

struct HeaderDependencies {
  std::vector<std::filesystem::path> include_dirs;
  std::vector<std::string> notes;  // e.g. a CUTLASS_SRC_DIR whose version differs from the one named
};

// How missing headers are fetched: the archive table (`table_file`: KERNEL_BUILDER_HEADER_ARCHIVES,
// empty for the built-in one), whether downloads are off (--offline / KERNEL_BUILDER_OFFLINE),
// the downloader (download_file; tests pass a fake) and where progress lines go.
struct HeaderFetchSettings {
  std::string table_file;
  bool offline = false;
  Downloader download = download_file;
  std::function<void(const std::string&)> note;
};

// Include directories for the units of `backend`. `env` stands for the process environment
// (getenv) so tests can pass their own; `cache_root` is the shared dependency cache. Without
// `fetch`, nothing is downloaded (as with `offline`).
util::Result<HeaderDependencies> resolve_header_dependencies(const config::BuildConfig& config, config::Backend backend,
                                                             const std::map<std::string, std::string>& env,
                                                             const std::filesystem::path& cache_root,
                                                             const HeaderFetchSettings* fetch = nullptr);

// `$XDG_CACHE_HOME/kernel-builder/deps`, else `$HOME/.cache/kernel-builder/deps`.
std::filesystem::path default_dependency_cache();

// The variables resolve_header_dependencies reads (the *_SRC_DIR ones), from this process's environment.
std::map<std::string, std::string> dependency_environment();

// Fetch settings from this process's environment: KERNEL_BUILDER_HEADER_ARCHIVES (the table),
// KERNEL_BUILDER_OFFLINE (1/true/yes/on: no downloads), or'ed with `offline` (--offline).
HeaderFetchSettings header_fetch_settings(bool offline);

}  // namespace kb::builder
