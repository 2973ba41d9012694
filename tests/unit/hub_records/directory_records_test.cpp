// The directory back end's own promises (src/hub/storage/directory_records.h): records are the files
// earlier versions wrote, and what is not a record (locks, temporaries, blobs) is never listed.
#include <gtest/gtest.h>

#include "hub/storage/directory_records.h"
#include "util/fs.h"

namespace kb::hub::storage {
namespace {
namespace KB_UNITY_ID {

TEST(DirectoryRecords, RecordsAreTheFilesUnderTheRoot) {
  util::TempDir root("kb-records");
  DirectoryRecords records(root.path());
  ASSERT_TRUE(records.write("repos/kernels/acme/relu/refs.json", "{}"));
  ASSERT_TRUE(records.append("usage/alice", "line\n"));
  EXPECT_EQ(*util::read_file(root.path() / "repos/kernels/acme/relu/refs.json"), "{}");
  EXPECT_EQ(*util::read_file(root.path() / "usage/alice"), "line\n");
}

TEST(DirectoryRecords, LockFlocksTheFileItNames) {
  util::TempDir root("kb-records");
  DirectoryRecords records(root.path());
  auto held = records.lock("repos/kernels/acme/relu/lock");
  ASSERT_TRUE(held);
  EXPECT_TRUE(std::filesystem::exists(root.path() / "repos/kernels/acme/relu/lock"));
}

TEST(DirectoryRecords, IsRecordPathLeavesOutLocksTemporariesAndBlobs) {
  EXPECT_TRUE(DirectoryRecords::is_record_path("repos/kernels/acme/relu/refs.json"));
  EXPECT_TRUE(DirectoryRecords::is_record_path("xet/xorbs/ab/abcd.index"));
  EXPECT_TRUE(DirectoryRecords::is_record_path("xet/files/ab/abcd"));
  EXPECT_FALSE(DirectoryRecords::is_record_path("repos/kernels/acme/relu/lock"));
  EXPECT_FALSE(DirectoryRecords::is_record_path("accounts.lock"));
  EXPECT_FALSE(DirectoryRecords::is_record_path("locks/usage/alice"));
  EXPECT_FALSE(DirectoryRecords::is_record_path("repos/kernels/acme/relu/.refs.json.tmp-1"));
  EXPECT_FALSE(DirectoryRecords::is_record_path("objects/ab/abcd"));
  EXPECT_FALSE(DirectoryRecords::is_record_path("xet/xorbs/ab/abcd"));
  EXPECT_FALSE(DirectoryRecords::is_record_path("tmp/upload-1"));
}

TEST(DirectoryRecords, ListAndWalkSkipWhatIsNotARecord) {
  util::TempDir root("kb-records");
  DirectoryRecords records(root.path());
  ASSERT_TRUE(records.write("repos/kernels/acme/relu/repo.json", "{}"));
  ASSERT_TRUE(util::write_file_atomic(root.path() / "objects/ab/abcd", "blob"));
  ASSERT_TRUE(util::write_file_atomic(root.path() / "repos/kernels/acme/relu/.refs.json.tmp-9", "partial"));
  { auto held = records.lock("repos/kernels/acme/relu/lock"); }
  EXPECT_EQ(*records.list(""), (std::vector<std::string>{"repos"}));
  EXPECT_EQ(*records.list("repos/kernels/acme/relu"), (std::vector<std::string>{"repo.json"}));
  std::vector<std::string> paths;
  ASSERT_TRUE(records.walk("", [&](const std::string& path) {
    paths.push_back(path);
    return util::Status{};
  }));
  EXPECT_EQ(paths, (std::vector<std::string>{"repos/kernels/acme/relu/repo.json"}));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::storage
