// History of a revision, newest first, one page at a time.
#include "hub/storage/repo_store.h"

#include <memory>

namespace kb::hub::storage {

util::Result<std::pair<std::vector<HistoryEntry>, bool>> RepoStore::history(const RepoId& repo, const std::string& revision,
                                                                       size_t skip, size_t limit) const {
  auto head = resolve(repo, revision);
  if (!head.ok()) return head.error();
  std::vector<HistoryEntry> page;
  std::string id = *head;
  for (size_t index = 0; !id.empty(); ++index) {
    if (index >= skip + limit) return std::make_pair(std::move(page), true);
    // One record each, never a whole tree: a delta record holds what the listing shows.
    auto record = read_record(repo, id);
    if (!record.ok()) return record.error();
    std::string parent = record->commit.parent;
    if (index >= skip) {
      record->commit.tree.clear();
      page.push_back(HistoryEntry{id, std::make_shared<const Commit>(std::move(record->commit))});
    }
    id = parent;
  }
  return std::make_pair(std::move(page), false);
}

}  // namespace kb::hub::storage
