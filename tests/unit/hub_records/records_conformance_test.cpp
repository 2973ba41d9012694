// One suite of RecordStore behaviour (src/hub/storage/backend.h) run against every back end: the
// directory and PostgreSQL (skipped only where its binaries are absent), so both answer alike.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "test_database.h"

namespace kb::hub::storage::testing {
namespace {
namespace KB_UNITY_ID {

enum class Kind { directory, postgres };

class RecordsConformance : public ::testing::TestWithParam<Kind> {
 protected:
  void SetUp() override {
    if (GetParam() == Kind::directory) {
      records_ = directory_records();
      return;
    }
    std::string skip;
    records_ = postgres_records(skip);
    if (!records_ && !skip.empty()) GTEST_SKIP() << skip;
    ASSERT_NE(records_, nullptr) << "PostgreSQL is installed but scripts/services/postgres did not give a database";
  }
  RecordStore& store() { return records_->store(); }
  std::unique_ptr<RecordsUnderTest> records_;
};

std::vector<std::string> walked(RecordStore& store, const std::string& dir) {
  std::vector<std::string> out;
  EXPECT_TRUE(store.walk(dir, [&](const std::string& path) {
    out.push_back(path);
    return util::Status{};
  }));
  return out;
}

TEST_P(RecordsConformance, ReadOfAbsentRecordIsNullopt) {
  auto read = store().read("repos/kernels/acme/relu/refs.json");
  ASSERT_TRUE(read);
  EXPECT_FALSE(read->has_value());
  EXPECT_FALSE(*store().exists("repos/kernels/acme/relu/refs.json"));
}

TEST_P(RecordsConformance, WriteReplacesBytesExactly) {
  std::string binary("a\0b\xff\n", 5);
  ASSERT_TRUE(store().write("xet/files/ab/abcd", binary));
  EXPECT_EQ(**store().read("xet/files/ab/abcd"), binary);
  ASSERT_TRUE(store().write("xet/files/ab/abcd", "second"));
  EXPECT_EQ(**store().read("xet/files/ab/abcd"), "second");
  ASSERT_TRUE(store().write("empty", ""));
  EXPECT_EQ(**store().read("empty"), "");
  EXPECT_TRUE(*store().exists("empty"));
}

TEST_P(RecordsConformance, CreateRefusesAnExistingRecord) {
  EXPECT_TRUE(*store().create("xet/secret", "one"));
  EXPECT_FALSE(*store().create("xet/secret", "two"));
  EXPECT_EQ(**store().read("xet/secret"), "one");
}

TEST_P(RecordsConformance, AppendCreatesThenExtends) {
  ASSERT_TRUE(store().append("usage/alice", "a 1\n"));
  ASSERT_TRUE(store().append("usage/alice", "b 2\n"));
  EXPECT_EQ(**store().read("usage/alice"), "a 1\nb 2\n");
}

TEST_P(RecordsConformance, ListNamesDirectChildrenSorted) {
  for (const char* path : {"repos/kernels/acme/relu/repo.json", "repos/kernels/acme/relu/commits/c1",
                           "repos/kernels/acme/gelu/repo.json", "repos/kernels/zeta/x/repo.json", "accounts.json"}) {
    ASSERT_TRUE(store().write(path, "x"));
  }
  EXPECT_EQ(*store().list("repos/kernels"), (std::vector<std::string>{"acme", "zeta"}));
  EXPECT_EQ(*store().list("repos/kernels/acme"), (std::vector<std::string>{"gelu", "relu"}));
  EXPECT_EQ(*store().list("repos/kernels/acme/relu"), (std::vector<std::string>{"commits", "repo.json"}));
  EXPECT_EQ(*store().list(""), (std::vector<std::string>{"accounts.json", "repos"}));
  EXPECT_TRUE(store().list("repos/models")->empty());
  EXPECT_TRUE(store().list("accounts.json")->empty());
}

TEST_P(RecordsConformance, ListDoesNotConfuseSiblingPrefixes) {
  ASSERT_TRUE(store().write("a/b", "x"));
  ASSERT_TRUE(store().write("a-b/c", "x"));
  ASSERT_TRUE(store().write("a0", "x"));
  EXPECT_EQ(*store().list("a"), (std::vector<std::string>{"b"}));
  EXPECT_EQ(walked(store(), "a"), (std::vector<std::string>{"a/b"}));
}

TEST_P(RecordsConformance, RemovedRecordsLeaveNoFolders) {
  ASSERT_TRUE(store().write("repos/kernels/acme/relu/repo.json", "x"));
  ASSERT_TRUE(store().write("repos/kernels/acme/relu/commits/c1", "x"));
  ASSERT_TRUE(store().write("repos/kernels/acme/gelu/repo.json", "x"));
  ASSERT_TRUE(store().remove("repos/kernels/acme/gelu/repo.json"));
  ASSERT_TRUE(store().remove("repos/kernels/acme/gelu/repo.json"));  // absent: a no-op
  EXPECT_EQ(*store().list("repos/kernels/acme"), (std::vector<std::string>{"relu"}));
  ASSERT_TRUE(store().remove_tree("repos/kernels/acme/relu"));
  ASSERT_TRUE(store().remove_tree("repos/kernels/acme/relu"));
  EXPECT_TRUE(store().list("repos/kernels")->empty());
  EXPECT_FALSE(*store().exists("repos/kernels/acme/relu/commits/c1"));
}

TEST_P(RecordsConformance, WalkVisitsEveryRecordInByteOrder) {
  for (const char* path : {"b/2", "a/z", "a/b/c", "a.json", "c"}) ASSERT_TRUE(store().write(path, "x"));
  EXPECT_EQ(walked(store(), ""), (std::vector<std::string>{"a.json", "a/b/c", "a/z", "b/2", "c"}));
  EXPECT_EQ(walked(store(), "a"), (std::vector<std::string>{"a/b/c", "a/z"}));
  EXPECT_TRUE(walked(store(), "none").empty());
}

TEST_P(RecordsConformance, WalkStopsAtTheVisitorsError) {
  ASSERT_TRUE(store().write("a", "x"));
  ASSERT_TRUE(store().write("b", "x"));
  int visits = 0;
  auto status = store().walk("", [&](const std::string&) -> util::Status {
    ++visits;
    return util::Error(util::ErrorKind::io, "stop");
  });
  EXPECT_FALSE(status);
  EXPECT_EQ(visits, 1);
}

TEST_P(RecordsConformance, LocksNestOnOneThread) {
  auto outer = store().lock("repos/kernels/acme/relu/lock");
  ASSERT_TRUE(outer);
  auto inner = store().lock("repos/kernels/acme/relu/lock");
  ASSERT_TRUE(inner);
  auto other = store().lock("accounts.lock");
  ASSERT_TRUE(other);
  ASSERT_TRUE(store().write("nested", "x"));
  EXPECT_TRUE((*other)->release());
  EXPECT_TRUE((*inner)->release());
  EXPECT_TRUE((*inner)->release());  // twice: nothing more
  EXPECT_TRUE((*outer)->release());
  EXPECT_EQ(**store().read("nested"), "x");
}

// Read, add one, write back under the lock from threads of two stores over the same records (two
// processes or replicas): no increment is lost.
TEST_P(RecordsConformance, LockSerializesReadModifyWriteAcrossStores) {
  auto second = records_->another();
  ASSERT_NE(second, nullptr);
  ASSERT_TRUE(store().write("counter", "0"));
  constexpr int kThreads = 6, kRounds = 15;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    RecordStore& target = t % 2 ? *second : store();
    threads.emplace_back([&target, &failures] {
      for (int i = 0; i < kRounds; ++i) {
        auto held = target.lock("locks/counter");
        if (!held) { ++failures; continue; }
        auto value = target.read("counter");
        if (!value || !*value || !target.write("counter", std::to_string(std::stoi(**value) + 1))) ++failures;
        if (!(*held)->release()) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(**store().read("counter"), std::to_string(kThreads * kRounds));
}

INSTANTIATE_TEST_SUITE_P(Backends, RecordsConformance, ::testing::Values(Kind::directory, Kind::postgres),
                         [](const ::testing::TestParamInfo<Kind>& param) {
                           return param.param == Kind::directory ? std::string("Directory") : std::string("Postgres");
                         });

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::storage::testing
