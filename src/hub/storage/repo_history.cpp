// History of a revision, newest first, one page at a time.
#include "hub/storage/repo_store.h"

namespace kb::hub::storage {

util::Result<std::pair<std::vector<HistoryEntry>, bool>> RepoStore::history(const RepoId& repo, const std::string& revision,
                                                                       size_t skip, size_t limit) const {
  auto head = resolve(repo, revision);
  if (!head.ok()) return head.error();
  std::vector<HistoryEntry> page;
  std::string id = *head;
  for (size_t index = 0; !id.empty(); ++index) {
    if (index >= skip + limit) return std::make_pair(std::move(page), true);
    auto commit = load_commit(repo, id);
    if (!commit.ok()) return commit.error();
    if (index >= skip) page.push_back(HistoryEntry{id, *commit});
    id = (*commit)->parent;
  }
  return std::make_pair(std::move(page), false);
}

}  // namespace kb::hub::storage
