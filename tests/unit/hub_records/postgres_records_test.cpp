// PostgreSQL back end of the records (src/hub/storage/postgres_records.h) against a real server that
// scripts/services/postgres starts: transactions under locks, other processes, dead connections.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "test_database.h"

#ifdef KB_HAVE_POSTGRES
#include "hub/storage/postgres_records.h"

namespace kb::hub::storage::testing {
namespace {

class PostgresRecordsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!database_.skip().empty()) GTEST_SKIP() << database_.skip();
    ASSERT_FALSE(database_.url().empty()) << "PostgreSQL is installed but scripts/services/postgres gave no database";
    auto opened = PostgresRecords::open(database_.url(), 4);
    ASSERT_TRUE(opened) << opened.error().message;
    store_ = std::move(*opened);
  }
  std::unique_ptr<PostgresRecords> open_another() {
    auto opened = PostgresRecords::open(database_.url(), 4);
    EXPECT_TRUE(opened);
    return opened ? std::move(*opened) : nullptr;
  }
  TestDatabase database_;
  std::unique_ptr<PostgresRecords> store_;
};

TEST_F(PostgresRecordsTest, WritesUnderALockCommitWhenTheOutermostLockIsReleased) {
  auto other = open_another();
  auto outer = store_->lock("repos/kernels/acme/relu/lock");
  ASSERT_TRUE(outer);
  {
    auto inner = store_->lock("usage/alice");
    ASSERT_TRUE(inner);
    ASSERT_TRUE(store_->write("repos/kernels/acme/relu/refs.json", "new"));
    EXPECT_EQ(**store_->read("repos/kernels/acme/relu/refs.json"), "new");  // the holder sees its writes
  }
  EXPECT_FALSE(other->read("repos/kernels/acme/relu/refs.json")->has_value());  // nobody else does yet
  ASSERT_TRUE((*outer)->release());
  EXPECT_EQ(**other->read("repos/kernels/acme/relu/refs.json"), "new");
}

TEST_F(PostgresRecordsTest, ALockWaitsForTheHolderInAnotherStore) {
  auto other = open_another();
  auto held = store_->lock("repos/kernels/acme/relu/lock");
  ASSERT_TRUE(held);
  std::atomic<bool> acquired{false};
  std::thread waiter([&] {
    auto second = other->lock("repos/kernels/acme/relu/lock");
    acquired = second.ok();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(acquired.load());
  ASSERT_TRUE((*held)->release());
  waiter.join();
  EXPECT_TRUE(acquired.load());
}

// A process that dies holding a lock leaves nothing of what it wrote under it, and frees the lock.
TEST_F(PostgresRecordsTest, DeathOfTheHolderRollsBackAndFreesTheLock) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto opened = PostgresRecords::open(database_.url(), 1);
    if (!opened) ::_exit(2);
    auto held = (*opened)->lock("repos/kernels/acme/relu/lock");
    if (!held || !(*opened)->write("repos/kernels/acme/relu/refs.json", "half")) ::_exit(3);
    (void)!::write(ready[1], "x", 1);
    ::pause();
    ::_exit(0);
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  auto held = store_->lock("repos/kernels/acme/relu/lock");  // lock_timeout bounds this at 60 s
  ASSERT_TRUE(held) << held.error().message;
  EXPECT_FALSE(store_->read("repos/kernels/acme/relu/refs.json")->has_value());
  ::close(ready[0]);
  ::close(ready[1]);
}

// Two processes increment one record under the lock: every increment lands.
TEST_F(PostgresRecordsTest, TwoProcessesCompareAndSetUnderTheLock) {
  ASSERT_TRUE(store_->write("counter", "0"));
  constexpr int kRounds = 40;
  std::vector<pid_t> children;
  for (int p = 0; p < 2; ++p) {
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      auto opened = PostgresRecords::open(database_.url(), 1);
      if (!opened) ::_exit(2);
      for (int i = 0; i < kRounds; ++i) {
        auto held = (*opened)->lock("locks/counter");
        if (!held) ::_exit(3);
        auto value = (*opened)->read("counter");
        if (!value || !*value || !(*opened)->write("counter", std::to_string(std::stoi(**value) + 1))) ::_exit(4);
        if (!(*held)->release()) ::_exit(5);
      }
      ::_exit(0);
    }
    children.push_back(child);
  }
  for (pid_t child : children) {
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  EXPECT_EQ(**store_->read("counter"), std::to_string(2 * kRounds));
}

TEST_F(PostgresRecordsTest, ReconnectsAfterItsConnectionsAreCut) {
  ASSERT_TRUE(store_->write("a", "1"));
  ASSERT_TRUE(execute_sql(database_.url(), "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                           "WHERE application_name = 'kernel-hub' AND datname = current_database() "
                                           "AND pid <> pg_backend_pid()"));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto read = store_->read("a");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(**read, "1");
  EXPECT_TRUE(store_->append("b", "x"));
}

TEST_F(PostgresRecordsTest, UnreachableServerIsAnErrorWithAHint) {
  auto opened = PostgresRecords::open("postgresql://kb:secret@127.0.0.1:1/kernel_hub", 1);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().message, "Cannot reach PostgreSQL at postgresql://kb@127.0.0.1:1/kernel_hub");
  EXPECT_EQ(opened.error().status, 503);
  ASSERT_FALSE(opened.error().hints.empty());
  EXPECT_NE(opened.error().hints[0].find("--database"), std::string::npos);
}

TEST_F(PostgresRecordsTest, RefusesASchemaVersionItDoesNotKnow) {
  ASSERT_TRUE(execute_sql(database_.url(), "UPDATE kb_schema SET version = 99 WHERE name = 'records'"));
  auto opened = PostgresRecords::open(database_.url(), 1);
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().message.find("schema version 99"), std::string::npos);
}

}  // namespace
}  // namespace kb::hub::storage::testing
#endif
