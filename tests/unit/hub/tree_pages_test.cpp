// tree_page and its cursors (docs/hub-api.md, "Tree listing").
#include "hub/server/tree_pages.h"

#include "hub/server/service.h"

#include <gtest/gtest.h>

namespace kb::hub::server {
namespace {
namespace KB_UNITY_ID {

std::map<std::string, storage::TreeEntry> make_tree(const std::vector<std::string>& paths) {
  std::map<std::string, storage::TreeEntry> tree;
  for (const auto& path : paths) tree[path] = storage::TreeEntry{"oid-" + path, "", 1, false};
  return tree;
}

// Every entry of a listing, page by page, through encoded cursors.
std::vector<std::string> walk(const std::map<std::string, storage::TreeEntry>& tree, const std::string& dir,
                              bool recursive, size_t limit, size_t* pages = nullptr) {
  std::vector<std::string> out;
  std::optional<TreeResume> after;
  size_t count = 0;
  while (true) {
    TreePage page = tree_page(tree, dir, recursive, after, limit);
    ++count;
    for (const auto& item : page.items) out.push_back((item.file ? "f:" : "d:") + item.path);
    if (!page.next) break;
    after = decode_tree_cursor("c1", encode_tree_cursor("c1", *page.next));
    EXPECT_TRUE(after.has_value());
  }
  if (pages) *pages = count;
  return out;
}

TEST(TreePage, NonRecursiveListsDirectoriesOnceInPathOrder) {
  auto tree = make_tree({"README.md", "a.txt", "a/b/c", "a/d", "b/x", "z"});
  std::vector<std::string> all = {"f:README.md", "f:a.txt", "d:a", "d:b", "f:z"};
  for (size_t limit : {1, 2, 3, 100}) EXPECT_EQ(walk(tree, "", false, limit), all) << limit;
  EXPECT_EQ(walk(tree, "a", false, 1), (std::vector<std::string>{"d:a/b", "f:a/d"}));
}

TEST(TreePage, RecursiveListsEachDirectoryBeforeItsFirstFile) {
  auto tree = make_tree({"a/b/c", "a/b/d", "a/e", "f"});
  std::vector<std::string> all = {"d:a", "d:a/b", "f:a/b/c", "f:a/b/d", "f:a/e", "f:f"};
  for (size_t limit : {1, 2, 5, 100}) EXPECT_EQ(walk(tree, "", true, limit), all) << limit;
}

TEST(TreePage, PagesAreBoundedAndCoverAThousandFiles) {
  std::vector<std::string> paths;
  for (int i = 0; i < 1000; ++i) paths.push_back("d" + std::to_string(i % 10) + "/f" + std::to_string(i));
  auto tree = make_tree(paths);
  size_t pages = 0;
  auto all = walk(tree, "", true, 50, &pages);
  EXPECT_EQ(all.size(), 1010u);
  EXPECT_LE(pages, 22u);
}

TEST(TreeCursor, ForgedOrForeignCursorsAreRefused) {
  std::string cursor = encode_tree_cursor("commit-a", {"some/path", false});
  EXPECT_TRUE(decode_tree_cursor("commit-a", cursor).has_value());
  EXPECT_FALSE(decode_tree_cursor("commit-b", cursor).has_value());
  for (std::string bad : {"", "0", "4", "-1", "f", "f.", "x00.0", "f6.zz", "d61", "f6d61696e.0000000000000000"}) {
    EXPECT_FALSE(decode_tree_cursor("commit-a", bad).has_value()) << bad;
  }
}

TEST(DirectoryOids, MatchTheOneDirectoryComputation) {
  storage::Commit commit;
  commit.tree = make_tree({"a/b/c", "a/d", "e"});
  auto oids = directory_oids(commit.tree);
  ASSERT_EQ(oids.size(), 2u);
  EXPECT_EQ(oids.at("a"), tree_directory_oid(commit, "a"));
  EXPECT_EQ(oids.at("a/b"), tree_directory_oid(commit, "a/b"));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::server
