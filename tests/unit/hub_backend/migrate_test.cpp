// migrate (src/hub/storage/migrate.h) between two directory back ends: every record and blob, byte
// for byte; a second run copies nothing; what only the target holds is kept and counted.
#include <gtest/gtest.h>

#include "hub/storage/migrate.h"
#include "util/fs.h"

namespace kb::hub::storage {
namespace {
namespace KB_UNITY_ID {

Backend directory(const std::filesystem::path& root) { return std::move(open_backend(BackendConfig{root, "", ""})).value(); }

std::string big_blob() {
  std::string data(20u << 20, '\0');  // more than one copy chunk
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7 % 251);
  return data;
}

TEST(Migrate, CopiesEveryRecordAndBlobByteForByte) {
  util::TempDir tmp("kb-migrate");
  Backend from = directory(tmp.path() / "from");
  ASSERT_TRUE(from.records->write("repos/kernels/acme/relu/refs.json", "{\"main\":\"abc\"}"));
  ASSERT_TRUE(from.records->append("usage/alice", std::string("\0binary\n", 8)));
  ASSERT_TRUE(from.records->write("accounts.json", "{}"));
  ASSERT_TRUE(from.blobs->put("objects/ab/abcd", big_blob()));
  ASSERT_TRUE(from.blobs->put("xet/xorbs/cd/cdef", "xorb"));
  Backend to = directory(tmp.path() / "to");
  std::vector<std::string> seen;
  auto counts = migrate(from, to, [&](const MigrationCounts&, const std::string& name) { seen.push_back(name); });
  ASSERT_TRUE(counts) << counts.error().message;
  EXPECT_EQ(counts->blobs, 2u);
  EXPECT_EQ(counts->blobs_copied, 2u);
  EXPECT_EQ(counts->blob_bytes_copied, (20u << 20) + 4);
  EXPECT_EQ(counts->records, 3u);
  EXPECT_EQ(counts->records_copied, 3u);
  EXPECT_EQ(seen.front(), "objects/ab/abcd");  // blobs before the records that name them
  EXPECT_EQ(*util::read_file(tmp.path() / "to/objects/ab/abcd"), big_blob());
  EXPECT_EQ(*util::read_file(tmp.path() / "to/usage/alice"), std::string("\0binary\n", 8));
  EXPECT_EQ(**to.records->read("repos/kernels/acme/relu/refs.json"), "{\"main\":\"abc\"}");
}

TEST(Migrate, RunAgainCopiesNothingAndKeepsTargetOnlyRecords) {
  util::TempDir tmp("kb-migrate");
  Backend from = directory(tmp.path() / "from");
  ASSERT_TRUE(from.records->write("accounts.json", "{}"));
  ASSERT_TRUE(from.blobs->put("objects/ab/abcd", "blob"));
  Backend to = directory(tmp.path() / "to");
  ASSERT_TRUE(migrate(from, to));
  ASSERT_TRUE(to.records->write("extra.json", "[]"));
  auto again = migrate(from, to);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->blobs_copied, 0u);
  EXPECT_EQ(again->records_copied, 0u);
  EXPECT_EQ(again->target_only_records, 1u);
  EXPECT_EQ(**to.records->read("extra.json"), "[]");
}

TEST(Migrate, ReplacesARecordThatDiffers) {
  util::TempDir tmp("kb-migrate");
  Backend from = directory(tmp.path() / "from");
  ASSERT_TRUE(from.records->write("accounts.json", "{\"new\":1}"));
  Backend to = directory(tmp.path() / "to");
  ASSERT_TRUE(to.records->write("accounts.json", "{}"));
  auto counts = migrate(from, to);
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->records_copied, 1u);
  EXPECT_EQ(**to.records->read("accounts.json"), "{\"new\":1}");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::storage
