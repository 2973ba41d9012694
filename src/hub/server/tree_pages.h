// One page of a tree listing (docs/hub-api.md, "Tree listing"), resumed from a cursor: the cost
// of a page is its entries times log(files), whatever its depth in the listing. Entries come in
// path order, a directory just before the first file beneath it (recursive listings) or in place
// of its files (non-recursive ones). A cursor names the last entry of the previous page and is
// bound to the commit, so one forged or taken from another revision is refused.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hub/storage/commit.h"

namespace kb::hub::server {

struct TreeItem {
  std::string path;
  const storage::TreeEntry* file = nullptr;  // nullptr: a directory
};

struct TreeResume {
  std::string path;        // the last entry listed
  bool directory = false;  // it was a directory (non-recursive listings skip what is beneath)
};

struct TreePage {
  std::vector<TreeItem> items;
  std::optional<TreeResume> next;  // where the next page starts; none after the last page
};

// Up to `limit` entries beneath `dir` ("" for the root) after `after` (none: from the start). A
// recursive page may exceed `limit` by the depth of its last file's new directories.
TreePage tree_page(const std::map<std::string, storage::TreeEntry>& tree, const std::string& dir, bool recursive,
                   const std::optional<TreeResume>& after, size_t limit);

// The opaque cursor of `resume` in the listing of `commit_id`, and back (nullopt: not a cursor
// of this commit's listing).
std::string encode_tree_cursor(const std::string& commit_id, const TreeResume& resume);
std::optional<TreeResume> decode_tree_cursor(const std::string& commit_id, const std::string& cursor);

// Every directory's id (tree_directory_oid) in one pass over the tree.
std::map<std::string, std::string> directory_oids(const std::map<std::string, storage::TreeEntry>& tree);

}  // namespace kb::hub::server
