// Settings (visibility, gating) and deletion of repositories.
#include "hub/storage/repo_store.h"

#include "hub/storage/repo_store_internal.h"
#include "hub/storage/storage_errors.h"

namespace kb::hub::storage {

namespace fs = std::filesystem;

util::Result<RepoInfo> RepoStore::update_settings(const RepoId& repo, std::optional<bool> is_private,
                                             std::optional<std::string> gated) {
  if (gated && !gated->empty() && *gated != "auto" && *gated != "manual") {
    return invalid_request("gated: expected \"auto\", \"manual\" or false");
  }
  auto before = repo_info(repo);
  if (!before.ok()) return before.error();
  fs::path dir = repo_dir(repo);
  WriteLock lock(repo_mutex(dir.string()), dir / "lock");
  auto info = repo_info(repo);  // again, under the lock
  if (!info.ok()) return info.error();
  if (is_private) info->is_private = *is_private;
  if (gated) info->gated = *gated;
  if (auto s = write_repo_record(dir, *info); !s) return storage_failure(s.error().message);
  return *info;
}

util::Result<std::vector<std::string>> RepoStore::delete_repo(const RepoId& repo) {
  auto info = repo_info(repo);
  if (!info.ok()) return info.error();
  fs::path dir = repo_dir(repo);
  fs::path trash = root_ / "tmp" / ("deleted-" + commit_id(key(repo) + now_iso8601()));
  {
    WriteLock lock(repo_mutex(dir.string()), dir / "lock");
    if (!fs::exists(dir / "repo.json")) return repo_not_found();
    std::error_code ec;
    fs::create_directories(trash.parent_path(), ec);
    // One rename makes the repository disappear at once; the rest is clean-up.
    fs::rename(dir, trash, ec);
    if (ec) return storage_failure("Cannot delete repository: " + ec.message());
  }
  // Its records leave with it: their ledger keys are returned with the objects.
  std::vector<std::string> removed{record_key(relative(repo, "repo.json"))};
  std::error_code ec;
  for (const char* kind : {"commits", "discussions"}) {
    for (const auto& file : fs::directory_iterator(trash / kind, ec)) {
      removed.push_back(record_key(relative(repo, std::string(kind) + "/" + file.path().filename().string())));
    }
  }
  if (auto refs = read_refs(trash); refs.ok()) {
    for (const auto& [name, commit] : refs->branches) removed.push_back(record_key(relative(repo, "refs/heads/" + name)));
    for (const auto& [name, commit] : refs->tags) removed.push_back(record_key(relative(repo, "refs/tags/" + name)));
  }
  fs::remove_all(trash, ec);
  {
    std::lock_guard<std::mutex> guard(cache_guard_);
    commit_cache_.clear();
  }
  std::unique_lock<std::shared_mutex> exclusive(gc_guard_);
  // Bodies kept elsewhere (Xet storage) are not the object store's to remove.
  for (const auto& sha : ownership_.remove_repo(key(repo))) {
    if (!objects_.contains(sha)) continue;
    if (auto s = objects_.remove(sha); !s) return storage_failure(s.error().message);
    removed.push_back(sha);
  }
  return removed;
}

}  // namespace kb::hub::storage
