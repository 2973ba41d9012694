// What a repository's history costs on disk (docs/hub-security.md, "Storage quota"): commits are
// stored as what changed (delta records, a snapshot now and then), discussions one file each, and
// every record is offered to the quota's ChargeRecord before it is written. Older roots (snapshot
// commits only, one discussions.json) stay readable.
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "hub/storage/repo_store.h"
#include "hub/storage/usage.h"
#include "store_ops.h"
#include "util/fs.h"

namespace kb::hub::storage {
namespace {
namespace KB_UNITY_ID {

using testing::add;
namespace fs = std::filesystem;

uint64_t bytes_under(const fs::path& dir) {
  uint64_t total = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) total += entry.file_size();
  }
  return total;
}

CommitRequest on_main(std::vector<Operation> ops, const std::string& message, ChargeRecord charge = {}) {
  CommitRequest request{"main", std::move(ops), message, {}, false};
  request.author = "alice";
  request.charge = std::move(charge);
  return request;
}

TEST(RepoStorageCost, CommitsOfOneSmallFileCostSmallRecordsNotCopiesOfTheTree) {
  util::TempDir dir;
  RepoStore store(dir.path());
  RepoId repo{"model", "acme", "big"};
  ASSERT_TRUE(store.create_repo(repo, false).ok());
  std::vector<Operation> many;
  for (int i = 0; i < 200; ++i) many.push_back(add(store, "build/variant/file" + std::to_string(i) + ".py", "x" + std::to_string(i)));
  ASSERT_TRUE(store.commit(repo, on_main(many, "a tree of 200 files")).ok());
  fs::path commits = dir.path() / "repos/models/acme/big/commits";
  uint64_t snapshot = fs::file_size(commits / *store.resolve(repo, "main"));
  uint64_t before = bytes_under(commits);
  std::map<std::string, uint64_t> charged;
  ChargeRecord charge = [&](const std::string& key, uint64_t bytes) -> util::Status {
    charged[key] += bytes;
    return {};
  };
  constexpr int kCommits = 300;  // 1,840 in the finding; the cost per commit is the same
  std::string middle;
  for (int i = 0; i < kCommits; ++i) {
    auto done = store.commit(repo, on_main({add(store, "counter.txt", std::to_string(i))}, "step " + std::to_string(i), charge));
    ASSERT_TRUE(done.ok()) << i;
    if (i == kCommits / 2) middle = done->commit;
  }
  uint64_t history_bytes = bytes_under(commits) - before;
  std::printf("%d commits of one small file in a tree of 201 files: %llu bytes of commit records "
              "(a snapshot of the tree: %llu bytes; whole trees would be %llu bytes)\n",
              kCommits, static_cast<unsigned long long>(history_bytes), static_cast<unsigned long long>(snapshot),
              static_cast<unsigned long long>(snapshot * kCommits));
  // Every byte written was charged, once per record.
  uint64_t charged_total = 0;
  for (const auto& [key, bytes] : charged) charged_total += bytes;
  EXPECT_EQ(charged.size(), static_cast<size_t>(kCommits));
  EXPECT_EQ(charged_total, history_bytes);
  // About one small record per commit: well under 1 KiB each, snapshots included.
  EXPECT_LT(history_bytes, uint64_t{kCommits} * 1024);
  EXPECT_GT(snapshot, uint64_t{30000});

  // Every revision reads back whole, with a cold cache too.
  RepoStore cold(dir.path());
  for (RepoStore* reader : {&store, &cold}) {
    auto head = reader->load_commit(repo, *reader->resolve(repo, "main"));
    ASSERT_TRUE(head.ok()) << head.error().message;
    EXPECT_EQ((*head)->tree.size(), 202u);  // .gitattributes, 200 files, counter.txt
    EXPECT_EQ((*head)->tree.at("counter.txt").sha256, add(store, "c", std::to_string(kCommits - 1)).entry.sha256);
    auto mid = reader->load_commit(repo, middle);
    ASSERT_TRUE(mid.ok());
    EXPECT_EQ((*mid)->tree.at("counter.txt").sha256, add(store, "c", std::to_string(kCommits / 2)).entry.sha256);
    EXPECT_EQ((*mid)->message, "step " + std::to_string(kCommits / 2));
  }
  auto page = cold.history(repo, "main", 0, 3);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->first.size(), 3u);
  EXPECT_EQ(page->first[0].commit->message, "step " + std::to_string(kCommits - 1));
  EXPECT_EQ(page->first[2].commit->author, "alice");
  auto last = cold.history(repo, "main", kCommits, 10);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->first.size(), 2u);  // the tree of 200 files and the initial commit
  EXPECT_FALSE(last->second);
}

TEST(RepoStorageCost, ADamagedDeltaRecordIsNeverServed) {
  util::TempDir dir;
  RepoStore store(dir.path());
  RepoId repo{"model", "acme", "m"};
  ASSERT_TRUE(store.create_repo(repo, false).ok());
  std::vector<Operation> files;
  for (int i = 0; i < 50; ++i) files.push_back(add(store, "f" + std::to_string(i), std::to_string(i)));
  ASSERT_TRUE(store.commit(repo, on_main(files, "tree")).ok());
  // (The first change after a large delta is a snapshot: the deltas since the last one outweigh it.)
  ASSERT_TRUE(store.commit(repo, on_main({add(store, "f1", "first")}, "first")).ok());
  auto changed = store.commit(repo, on_main({add(store, "f1", "changed")}, "change"));
  ASSERT_TRUE(changed.ok());
  fs::path record = dir.path() / "repos/models/acme/m/commits" / changed->commit;
  auto text = util::read_file(record);
  ASSERT_TRUE(text.ok());
  ASSERT_NE(text->find("\"format_version\":2"), std::string::npos) << *text;  // a delta
  std::string damaged = *text;
  damaged.replace(damaged.find("change"), 6, "chanGe");
  ASSERT_TRUE(util::write_file_atomic(record, damaged).ok());
  RepoStore cold(dir.path());
  auto loaded = cold.load_commit(repo, changed->commit);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().status, 500);
}

TEST(RepoStorageCost, OlderRootsWithSnapshotCommitsAndOneDiscussionsFileStayReadable) {
  util::TempDir dir;
  RepoId repo{"model", "acme", "old"};
  fs::path repo_dir = dir.path() / "repos/models/acme/old";
  std::string head;
  {
    RepoStore store(dir.path());
    ASSERT_TRUE(store.create_repo(repo, false).ok());
    head = *store.resolve(repo, "main");
    // A commit as older servers wrote every commit: the whole tree (format 1), and discussions in
    // one file.
    auto base = store.load_commit(repo, head);
    Commit old = **base;
    old.parent = head;
    old.message = "written by an older server";
    old.time = "2026-01-01T00:00:00.000Z";
    old.tree["a.txt"] = add(store, "a.txt", "old").entry;
    std::string bytes = serialize_commit(old);
    head = commit_id(bytes);
    ASSERT_TRUE(util::write_file_atomic(repo_dir / "commits" / head, bytes).ok());
    ASSERT_TRUE(util::write_file_atomic(repo_dir / "refs.json",
                                        "{\"format_version\": 1, \"branches\": {\"main\": \"" + head +
                                            "\"}, \"pull_requests\": {}}")
                    .ok());
    ASSERT_TRUE(util::write_file_atomic(repo_dir / "discussions.json",
                                        R"({"format_version": 1, "discussions": {"1": {"pull_request": false,
                                        "author": "bob", "title": "old talk", "description": "", "status": "open",
                                        "created": "2026-01-01T00:00:00.000Z", "base": ""}}})")
                    .ok());
  }
  RepoStore store(dir.path());
  auto loaded = store.load_commit(repo, head);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ((*loaded)->tree.count("a.txt"), 1u);
  auto next = store.commit(repo, on_main({add(store, "b.txt", "new")}, "on top"));
  ASSERT_TRUE(next.ok());
  RepoStore cold(dir.path());
  auto tree = cold.load_commit(repo, next->commit);
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ((*tree)->tree.count("a.txt") + (*tree)->tree.count("b.txt"), 2u);
  auto listed = cold.history(repo, "main", 0, 10);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->first.size(), 3u);
  EXPECT_EQ(listed->first[1].commit->message, "written by an older server");

  Discussion talk;
  talk.author = "carol";
  talk.title = "new talk";
  talk.status = "open";
  auto opened = cold.open_discussion(repo, talk);
  ASSERT_TRUE(opened.ok());
  EXPECT_EQ(opened->num, 2);
  EXPECT_TRUE(fs::exists(repo_dir / "discussions" / "2.json"));
  auto all = cold.discussions(repo);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[1].title, "old talk");
  EXPECT_EQ((*all)[0].title, "new talk");
}

TEST(RepoStorageCost, ARefusedChargeWritesNothing) {
  util::TempDir dir;
  RepoStore store(dir.path());
  RepoId repo{"model", "acme", "m"};
  ChargeRecord refuse = [](const std::string&, uint64_t) -> util::Status { return quota_exceeded("over quota"); };
  EXPECT_EQ(testing::answer(store.create_repo(repo, false, refuse).error()), (testing::Answer{413, ""}));
  EXPECT_FALSE(store.repo_info(repo).ok());
  std::map<std::string, uint64_t> charged;
  ChargeRecord record = [&](const std::string& key, uint64_t bytes) -> util::Status {
    charged[key] = bytes;
    return {};
  };
  ASSERT_TRUE(store.create_repo(repo, false, record).ok());
  ASSERT_EQ(charged.size(), 1u);
  std::string head = *store.resolve(repo, "main");
  fs::path commits = dir.path() / "repos/models/acme/m/commits";
  auto count = [&] { return std::distance(fs::directory_iterator(commits), fs::directory_iterator()); };
  auto before = count();
  EXPECT_EQ(testing::answer(store.commit(repo, on_main({add(store, "a", "a")}, "no", refuse)).error()),
            (testing::Answer{413, ""}));
  EXPECT_EQ(*store.resolve(repo, "main"), head);
  EXPECT_EQ(count(), before);
  EXPECT_EQ(testing::answer(store.create_branch(repo, "dev", "main", refuse).error()), (testing::Answer{413, ""}));
  EXPECT_EQ(testing::answer(store.create_tag(repo, "v1", "main", refuse).error()), (testing::Answer{413, ""}));
  EXPECT_TRUE(store.refs(repo)->tags.empty());
  EXPECT_EQ(store.refs(repo)->branches.size(), 1u);
  Discussion talk;
  talk.author = "mallory";
  talk.title = "spam";
  EXPECT_EQ(testing::answer(store.open_discussion(repo, talk, refuse).error()), (testing::Answer{413, ""}));
  EXPECT_TRUE(store.discussions(repo)->empty());
  // Accepted records are charged with the bytes written, under their record key.
  charged.clear();
  auto done = store.commit(repo, on_main({add(store, "a", "a")}, "yes", record));
  ASSERT_TRUE(done.ok());
  std::string key = RepoStore::record_key("repos/models/acme/m/commits/" + done->commit);
  ASSERT_EQ(charged.count(key), 1u);
  EXPECT_EQ(charged[key], fs::file_size(commits / done->commit));
  auto opened = store.open_discussion(repo, talk, record);
  ASSERT_TRUE(opened.ok());
  std::string name = "discussions/" + std::to_string(opened->num) + ".json";
  key = RepoStore::record_key("repos/models/acme/m/" + name);
  ASSERT_EQ(charged.count(key), 1u);
  EXPECT_EQ(charged[key], fs::file_size(dir.path() / "repos/models/acme/m" / name));
}

TEST(RepoStorageCost, TheLedgerChargesWithinTheQuotaInOneStepAndGivesBackManyKeys) {
  util::TempDir dir;
  UsageLedger usage(dir.path());
  std::string a = RepoStore::record_key("repos/models/acme/m/commits/a");
  std::string b = RepoStore::record_key("repos/models/acme/m/commits/b");
  EXPECT_TRUE(*usage.charge_within("alice", a, 600, 1000));
  EXPECT_TRUE(*usage.charge_within("alice", a, 600, 1000));  // charged once
  EXPECT_EQ(usage.used("alice"), 600u);
  EXPECT_FALSE(*usage.charge_within("alice", b, 401, 1000));  // over: nothing charged
  EXPECT_EQ(usage.used("alice"), 600u);
  ASSERT_TRUE(usage.reserve("alice", 300, 1000));  // an upload in progress counts too
  EXPECT_FALSE(*usage.charge_within("alice", b, 101, 1000));
  usage.release("alice", 300);
  EXPECT_TRUE(*usage.charge_within("alice", b, 400, 1000));
  EXPECT_TRUE(*usage.charge_within("bob", b, 400, 0));  // 0: no quota
  ASSERT_TRUE(usage.discharge(std::vector<std::string>{a, b}).ok());
  EXPECT_EQ(usage.used("alice"), 0u);
  EXPECT_EQ(usage.used("bob"), 0u);
  UsageLedger reopened(dir.path());  // the ledger on disk says the same
  EXPECT_EQ(reopened.used("alice"), 0u);
  EXPECT_FALSE(reopened.has("alice", a));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::storage
