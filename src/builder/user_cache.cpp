// The user cache directory and its helpers (see user_cache.h).
#include "builder/user_cache.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

#include "util/strings.h"

namespace kb::builder {

namespace fs = std::filesystem;

fs::path user_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "kernel-builder";
  const char* home = std::getenv("HOME");
  return fs::path(home && *home ? home : "/tmp") / ".cache" / "kernel-builder";
}

std::map<std::string, std::string> builder_python_env() {
  const char* prefix = std::getenv("PYTHONPYCACHEPREFIX");
  if (prefix != nullptr && *prefix != '\0') return {};
  return {{"PYTHONPYCACHEPREFIX", (user_cache_dir() / "pycache").string()}};
}

std::string file_stamp(const fs::path& path) {
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) return "missing";
  auto time = fs::last_write_time(path, ec);
  if (ec) return "missing";
  std::uintmax_t size = 0;
  if (fs::is_regular_file(status)) {
    size = fs::file_size(path, ec);
    if (ec) return "missing";
  }
  return std::to_string(size) + " " + std::to_string(time.time_since_epoch().count());
}

void prune_oldest_files(const fs::path& dir, const std::string& suffix, std::size_t max_entries) {
  std::vector<std::pair<fs::file_time_type, fs::path>> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (!entry.is_regular_file(ec) || util::starts_with(name, ".") || !util::ends_with(name, suffix)) continue;
    auto time = fs::last_write_time(entry.path(), ec);
    if (ec) continue;
    files.emplace_back(time, entry.path());
  }
  if (files.size() <= max_entries) return;
  std::sort(files.begin(), files.end());
  for (size_t i = 0; i + max_entries < files.size(); ++i) fs::remove(files[i].second, ec);
}

}  // namespace kb::builder
