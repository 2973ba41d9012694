// Settings (visibility, gating) and deletion of repositories.
#include "hub/storage/repo_store.h"

#include <set>

#include "hub/storage/repo_store_internal.h"
#include "hub/storage/storage_errors.h"

namespace kb::hub::storage {

util::Result<RepoInfo> RepoStore::update_settings(const RepoId& repo, std::optional<bool> is_private,
                                             std::optional<std::string> gated) {
  if (gated && !gated->empty() && *gated != "auto" && *gated != "manual") {
    return invalid_request("gated: expected \"auto\", \"manual\" or false");
  }
  auto before = repo_info(repo);
  if (!before.ok()) return before.error();
  auto held = lock_repo(repo);
  if (!held) return std::move(held).error();
  auto info = repo_info(repo);  // again, under the lock
  if (!info.ok()) return info.error();
  if (is_private) info->is_private = *is_private;
  if (gated) info->gated = *gated;
  if (auto s = write_repo_record(repo, *info); !s) return storage_failure(s.error());
  if (auto s = (*held)->release(); !s) return storage_failure(s.error());
  return *info;
}

util::Result<std::vector<std::string>> RepoStore::delete_repo(const RepoId& repo) {
  auto info = repo_info(repo);
  if (!info.ok()) return info.error();
  // Its records leave with it: their ledger keys are returned with the objects.
  std::vector<std::string> removed{record_key(relative(repo, "repo.json"))};
  std::set<std::string> owned;
  {
    auto held = lock_repo(repo);
    if (!held) return std::move(held).error();
    auto exists = records_->exists(relative(repo, "repo.json"));
    if (!exists) return storage_failure(std::move(exists).error());
    if (!*exists) return repo_not_found();
    for (const char* kind : {"commits", "discussions"}) {
      auto names = records_->list(relative(repo, kind));
      if (!names) return storage_failure(std::move(names).error());
      for (const auto& name : *names) removed.push_back(record_key(relative(repo, std::string(kind) + "/" + name)));
    }
    if (auto refs = read_refs(repo); refs.ok()) {
      for (const auto& [name, commit] : refs->branches) removed.push_back(record_key(relative(repo, "refs/heads/" + name)));
      for (const auto& [name, commit] : refs->tags) removed.push_back(record_key(relative(repo, "refs/tags/" + name)));
    }
    owned = ownership_.owned_by(key(repo));
    // repo.json first: the repository is gone at once; the rest is clean-up (committed together in
    // the database back end).
    if (auto s = records_->remove(relative(repo, "repo.json")); !s) return storage_failure(s.error());
    if (auto s = records_->remove_tree("repos/" + key(repo)); !s) return storage_failure(s.error());
    if (auto s = (*held)->release(); !s) return storage_failure(s.error());
  }
  {
    std::lock_guard<std::mutex> guard(cache_guard_);
    commit_cache_.clear();
  }
  std::unique_lock<std::shared_mutex> exclusive(gc_guard_);
  // Bodies kept elsewhere (Xet storage) are not the object store's to remove.
  for (const auto& sha : ownership_.remove_repo(key(repo), owned)) {
    if (!objects_.contains(sha)) continue;
    if (auto s = objects_.remove(sha); !s) return storage_failure(s.error());
    removed.push_back(sha);
  }
  return removed;
}

}  // namespace kb::hub::storage
