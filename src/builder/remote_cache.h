// A compile cache shared between machines (docs/release-ci.md): ccache's remote storage (Redis or HTTP),
// configured for every compile of a build by `build --remote-cache URL` or
// KERNEL_BUILDER_REMOTE_CACHE. ccache does the caching; this names the storage, makes the cache
// keys independent of where the kernel directory is (base_dir, no hash of the working
// directory), and reads ccache's per-build stats log for a one-line report per variant.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "util/result.h"

namespace kb::builder {

// The storage URL from the option, else from KERNEL_BUILDER_REMOTE_CACHE; nothing when neither
// is set. A URL of a back end Debian 12's ccache (4.7) lacks is a usage error with a hint.
util::Result<std::optional<std::string>> resolve_remote_cache(const std::optional<std::string>& option);

// The URL without credentials (`redis://:secret@host` -> `redis://***@host`), for messages.
std::string redact_storage_url(const std::string& url);

// Environment of the compile step: the remote storage, cache keys relative to `project`, and
// ccache's stats log at `stats_log` (one line per counter of each compile).
std::map<std::string, std::string> remote_cache_env(const std::string& url, const std::filesystem::path& project,
                                                    const std::filesystem::path& stats_log);

struct CompileCacheStats {
  int compiles = 0;     // cacheable compiler calls
  int hits = 0;         // served from a cache (local or remote)
  int remote_hits = 0;  // of those, from the remote storage
};

// Counts from a ccache stats log (`# <source>` then one counter id per line, per compile).
CompileCacheStats parse_stats_log(const std::string& text);

// "3 of 3 compiles from the compiler cache (3 from the remote cache)".
std::string describe(const CompileCacheStats& stats);

}  // namespace kb::builder
