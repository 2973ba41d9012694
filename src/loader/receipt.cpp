// Receipt files: JSON {"variant", "files": {relpath: [size, mtime_ns, inode]}}.
#include "loader/receipt.h"

#include <sys/stat.h>

#include <map>
#include <nlohmann/json.hpp>

#include "loader/cache_path.h"
#include "loader/verification.h"
#include "util/fs.h"
#include "util/strings.h"

namespace kb::loader {
namespace {

using Stamp = std::vector<int64_t>;

// Stat data of every file of the variant directory (following symlinks into blobs/).
std::optional<std::map<std::string, Stamp>> stamps(const std::filesystem::path& dir) {
  std::map<std::string, Stamp> out;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return std::nullopt;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    auto relative = it->path().lexically_relative(dir).generic_string();
    if (python_bytecode(relative)) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    struct stat st {};
    if (::stat(it->path().c_str(), &st) != 0) return std::nullopt;  // dangling link
    if (S_ISDIR(st.st_mode)) continue;
    int64_t mtime = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
    out[relative] = Stamp{static_cast<int64_t>(st.st_size), mtime, static_cast<int64_t>(st.st_ino)};
  }
  if (ec) return std::nullopt;
  return out;
}

std::filesystem::path listing_path(const RepoCache& cache, const std::string& commit) {
  return cache.receipt_path(commit, "build").parent_path() / "build-listing.json";
}

}  // namespace

util::Status write_receipt(const RepoCache& cache, const std::string& commit, const std::string& variant) {
  auto files = stamps(cache.snapshot_dir(commit) / "build" / variant);
  if (!files) return util::Error(util::ErrorKind::io, "Cannot stat the files of variant " + variant);
  nlohmann::json json{{"variant", variant}, {"files", *files}};
  auto path = cache.receipt_path(commit, variant);
  KB_TRY(check_inside(cache.root(), path));
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  return util::write_file_atomic(path, json.dump());
}

bool receipt_valid(const RepoCache& cache, const std::string& commit, const std::string& variant) {
  auto text = util::read_file(cache.receipt_path(commit, variant));
  if (!text) return false;
  auto json = nlohmann::json::parse(*text, nullptr, false);
  if (json.is_discarded() || !json.contains("files")) return false;
  auto actual = stamps(cache.snapshot_dir(commit) / "build" / variant);
  if (!actual) return false;
  std::map<std::string, Stamp> recorded;
  try {
    recorded = json["files"].get<std::map<std::string, Stamp>>();
  } catch (const nlohmann::json::exception&) {
    return false;
  }
  return recorded == *actual;
}

void remove_receipt(const RepoCache& cache, const std::string& commit, const std::string& variant) {
  std::error_code ec;
  std::filesystem::remove(cache.receipt_path(commit, variant), ec);
}

util::Status write_build_listing(const RepoCache& cache, const std::string& commit,
                                 const std::vector<std::string>& names) {
  auto path = listing_path(cache, commit);
  KB_TRY(check_inside(cache.root(), path));
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  return util::write_file_atomic(path, nlohmann::json(names).dump());
}

std::optional<std::vector<std::string>> read_build_listing(const RepoCache& cache, const std::string& commit) {
  auto text = util::read_file(listing_path(cache, commit));
  if (!text) return std::nullopt;
  auto json = nlohmann::json::parse(*text, nullptr, false);
  if (!json.is_array()) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& v : json) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

}  // namespace kb::loader
