// Benchmark run records on disk (hub/storage/benchmark_store.h) and the repository listing of
// the index page (RepoStore::list_repos).
#include "hub/storage/benchmark_store.h"

#include <gtest/gtest.h>

#include "util/fs.h"

namespace kb::hub::storage {
namespace {
namespace KB_UNITY_ID {

TEST(BenchmarkStore, HidesRemovesAndKeepsWhoPosted) {
  util::TempDir root;
  BenchmarkStore store(root.path());
  RepoId repo{"kernel", "acme", "relu"};
  BenchmarkRecord spam{BenchmarkStore::new_id(), std::string(40, 'a'), "mallory", "2026-11-23T12:00:00.000Z", "{}",
                       true, false};
  ASSERT_TRUE(store.add(repo, spam));
  EXPECT_EQ(*(*store.get(repo, spam.id))->outsider, true);
  ASSERT_TRUE(*store.set_hidden(repo, spam.id, true));
  auto hidden = *store.get(repo, spam.id);
  EXPECT_TRUE(hidden->hidden);
  EXPECT_EQ(hidden->uploaded_by, "mallory");
  EXPECT_EQ(*hidden->outsider, true);
  ASSERT_TRUE(*store.set_hidden(repo, spam.id, false));
  EXPECT_FALSE((*store.get(repo, spam.id))->hidden);
  EXPECT_FALSE(*store.set_hidden(repo, BenchmarkStore::new_id(), true));
  EXPECT_EQ(BenchmarkStore::relative_path(repo, spam.id), "benchmarks/kernels/acme/relu/" + spam.id + ".json");
  ASSERT_TRUE(*store.remove(repo, spam.id));
  EXPECT_FALSE(*store.get(repo, spam.id));
  EXPECT_FALSE(*store.remove(repo, spam.id));
  EXPECT_FALSE(*store.remove(repo, "../../etc/passwd"));
  // A record written before "outsider" existed reads as unknown.
  std::string id = BenchmarkStore::new_id();
  ASSERT_TRUE(util::write_file_atomic(root.path() / "benchmarks/kernels/acme/relu" / (id + ".json"),
                                      "{\"format\":1,\"id\":\"" + id + "\",\"revision\":\"r\",\"uploaded_by\":\"bob\","
                                      "\"uploaded_at\":\"t\",\"document\":{}}"));
  auto old = *store.get(repo, id);
  ASSERT_TRUE(old);
  EXPECT_FALSE(old->outsider.has_value());
  EXPECT_FALSE(old->hidden);
}

TEST(BenchmarkStore, AddsListsAndGetsRecords) {
  util::TempDir root;
  BenchmarkStore store(root.path());
  RepoId repo{"kernel", "acme", "relu"};
  BenchmarkRecord late{BenchmarkStore::new_id(), std::string(40, 'a'), "alice", "2026-11-23T12:00:00.000Z",
                       R"({"format":"kernels-benchmark/1"})"};
  BenchmarkRecord early{BenchmarkStore::new_id(), std::string(40, 'b'), "bob", "2026-11-22T12:00:00.000Z", "{}"};
  ASSERT_TRUE(store.add(repo, late));
  ASSERT_TRUE(store.add(repo, early));
  EXPECT_FALSE(store.add(repo, late));  // records are never replaced

  auto listed = store.list(repo);
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].id, early.id);  // oldest first
  EXPECT_EQ((*listed)[1].document, late.document);
  EXPECT_EQ((*listed)[1].uploaded_by, "alice");

  auto one = store.get(repo, early.id);
  ASSERT_TRUE(one && *one);
  EXPECT_EQ((*one)->revision, early.revision);
  EXPECT_FALSE(*store.get(repo, BenchmarkStore::new_id()));
  EXPECT_FALSE(*store.get(repo, "../../etc/passwd"));
  EXPECT_TRUE(store.list(RepoId{"kernel", "acme", "other"})->empty());

  // One file per run, under <root>/benchmarks/kernels/<namespace>/<name>/.
  auto files = util::list_files_recursive(root.path() / "benchmarks");
  EXPECT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].rfind("kernels/acme/relu/", 0), 0u);
}

TEST(BenchmarkStore, IgnoresTemporariesAndReportsDamagedRecords) {
  util::TempDir root;
  BenchmarkStore store(root.path());
  RepoId repo{"kernel", "acme", "relu"};
  ASSERT_TRUE(store.add(repo, {BenchmarkStore::new_id(), "c", "u", "t", "{}"}));
  auto dir = root.path() / "benchmarks" / "kernels" / "acme" / "relu";
  ASSERT_TRUE(util::write_file_atomic(dir / ".tmp-partial", "{"));
  EXPECT_EQ(store.list(repo)->size(), 1u);
  ASSERT_TRUE(util::write_file_atomic(dir / (std::string(20, 'f') + ".json"), "{\"format\": 1}"));
  EXPECT_FALSE(store.list(repo));
}

TEST(BenchmarkStore, RunIds) {
  std::string id = BenchmarkStore::new_id();
  EXPECT_TRUE(BenchmarkStore::valid_id(id));
  EXPECT_NE(id, BenchmarkStore::new_id());
  EXPECT_FALSE(BenchmarkStore::valid_id(std::string(19, 'a')));
  EXPECT_FALSE(BenchmarkStore::valid_id(std::string(20, 'A')));
}

TEST(RepoStore, ListReposListsExistingRepositoriesOfOneType) {
  util::TempDir root;
  RepoStore store(root.path());
  ASSERT_TRUE(store.create_repo({"kernel", "zeta", "a"}, false).ok());
  ASSERT_TRUE(store.create_repo({"kernel", "acme", "relu"}, true).ok());
  ASSERT_TRUE(store.create_repo({"model", "acme", "model"}, false).ok());
  std::filesystem::create_directories(root.path() / "repos" / "kernels" / "acme" / "half-made");
  auto kernels = store.list_repos("kernel");
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].full(), "acme/relu");
  EXPECT_EQ(kernels[1].full(), "zeta/a");
  EXPECT_EQ(store.list_repos("model").size(), 1u);
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::storage
