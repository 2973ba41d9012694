// ccache remote storage for builds (see remote_cache.h).
#include "builder/remote_cache.h"

#include <cstdlib>

#include "util/strings.h"

namespace kb::builder {

namespace fs = std::filesystem;

namespace {

// ccache 4.7's remote storage back ends (its `remote_storage` syntax): a URL scheme each.
constexpr const char* kSchemes[] = {"redis://", "redis+unix:", "http://", "file:"};

}  // namespace

util::Result<std::optional<std::string>> resolve_remote_cache(const std::optional<std::string>& option) {
  std::string url;
  if (option) {
    url = *option;
  } else if (const char* env = std::getenv("KERNEL_BUILDER_REMOTE_CACHE"); env) {
    url = env;
  }
  url = std::string(util::trim(url));
  if (url.empty()) return std::optional<std::string>();
  for (const char* scheme : kSchemes) {
    if (util::starts_with(url, scheme) && url.size() > std::string(scheme).size()) return std::optional<std::string>(url);
  }
  util::Error error(util::ErrorKind::usage, "Unsupported remote compile cache `" + redact_storage_url(url) + "`");
  error.hints.push_back("use a Redis server (`redis://[[USER]:PASSWORD@]HOST[:PORT]`, `redis+unix:/PATH`), an HTTP "
                        "server that stores what is PUT (`http://HOST[:PORT]/PATH`) or a shared directory "
                        "(`file:/PATH`): ccache's remote storage back ends");
  if (util::starts_with(url, "https://") || util::starts_with(url, "rediss://")) {
    error.hints.push_back("this machine's ccache (4.7) has no TLS for remote storage: reach the server over a "
                          "private network or a TLS tunnel");
  }
  return error;
}

std::string redact_storage_url(const std::string& url) {
  auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return url;
  auto host_start = scheme_end + 3;
  auto at = url.find('@', host_start);
  auto slash = url.find('/', host_start);
  if (at == std::string::npos || (slash != std::string::npos && at > slash)) return url;
  return url.substr(0, host_start) + "***" + url.substr(at);
}

std::map<std::string, std::string> remote_cache_env(const std::string& url, const fs::path& project,
                                                    const fs::path& stats_log) {
  return {
      {"CCACHE_REMOTE_STORAGE", url},
      // Paths under the kernel directory (sources, the build tree) hash relative to it, and the
      // working directory is not hashed: another checkout elsewhere finds the same entries.
      {"CCACHE_BASEDIR", project.string()},
      {"CCACHE_NOHASHDIR", "1"},
      // nvcc gets the prefix map through -Xcompiler, which ccache hashes as an opaque argument
      // holding the kernel directory's absolute path (it leaves g++'s own -ffile-prefix-map out
      // of the hash already). The map makes the output independent of that path, so it may be
      // left out of nvcc's cache key too.
      {"CCACHE_IGNOREOPTIONS", "-Xcompiler=-ffile-prefix-map=*"},
      {"CCACHE_STATSLOG", stats_log.string()},
  };
}

CompileCacheStats parse_stats_log(const std::string& text) {
  CompileCacheStats stats;
  bool counted = false, hit = false, remote = false, in_entry = false;
  auto finish = [&] {
    if (in_entry && counted) {
      ++stats.compiles;
      if (hit) ++stats.hits;
      if (hit && remote) ++stats.remote_hits;
    }
    counted = hit = remote = false;
  };
  for (const auto& raw : util::split(text, '\n')) {
    std::string line(util::trim(raw));
    if (line.empty()) continue;
    if (line[0] == '#') {
      finish();
      in_entry = true;
      continue;
    }
    if (line == "direct_cache_hit" || line == "preprocessed_cache_hit") counted = hit = true;
    if (line == "cache_miss") counted = true;
    if (line == "remote_storage_hit") remote = true;
  }
  finish();
  return stats;
}

std::string describe(const CompileCacheStats& stats) {
  return std::to_string(stats.hits) + " of " + std::to_string(stats.compiles) + " compiles from the compiler cache (" +
         std::to_string(stats.remote_hits) + " from the remote cache)";
}

}  // namespace kb::builder
