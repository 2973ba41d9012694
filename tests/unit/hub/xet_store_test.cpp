// Xet storage of the Hub server (storage/xet_store.h): content imported into xorbs reads back
// byte for byte through XetFileReader, at any offset; records and indexes round-trip.
#include <gtest/gtest.h>

#include <random>

#include "hub/storage/directory_blobs.h"
#include "hub/storage/xet_store.h"
#include "util/fs.h"
#include "util/hash.h"

namespace kb::hub::storage {
namespace {
namespace KB_UNITY_ID {

std::string random_bytes(size_t size, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::string out(size, '\0');
  for (auto& c : out) c = static_cast<char>(rng() & 0xff);
  return out;
}

std::string read_all(XetFileReader& reader, uint64_t offset, uint64_t length) {
  std::string out;
  EXPECT_TRUE(reader.read(offset, length, [&out](const char* data, size_t size) {
    out.append(data, size);
    return true;
  }));
  return out;
}

TEST(XetStore, ImportFileThenReadBackAnyRange) {
  util::TempDir dir;
  DirectoryBlobs blobs(dir.path());
  XetStore store(dir.path(), blobs);
  // Three xorbs' worth would take long to hash here; 3 MiB spans many chunks and a decode window.
  std::string content = random_bytes(3 * 1024 * 1024 + 4321, 7) + std::string(200000, 'z');
  std::string sha = util::sha256_hex(content);
  ASSERT_TRUE(blobs.put("objects/" + sha.substr(0, 2) + "/" + sha, content).ok());
  auto file = store.import_file("objects/" + sha.substr(0, 2) + "/" + sha, sha);
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->size, content.size());
  EXPECT_EQ(store.file_for_sha256(sha), file->hash);
  auto again = store.file(file->hash);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->terms.size(), file->terms.size());
  EXPECT_EQ(again->sha256, sha);
  XetFileReader reader(store, *again);
  EXPECT_EQ(read_all(reader, 0, content.size()), content);
  for (uint64_t offset : {uint64_t{0}, uint64_t{1}, uint64_t{65535}, uint64_t{2 * 1024 * 1024 + 17}, content.size() - 5}) {
    EXPECT_EQ(read_all(reader, offset, 100000), content.substr(offset, 100000)) << offset;
  }
  // The first chunk of the xorb is in the global dedup index.
  auto layout = store.xorb_layout(file->terms[0].xorb);
  ASSERT_TRUE(layout.ok());
  auto location = store.chunk_location(xet::hash_to_string(layout->chunks[0].hash));
  ASSERT_TRUE(location.has_value());
  EXPECT_EQ(location->first, file->terms[0].xorb);
  EXPECT_EQ(location->second, 0u);
}

TEST(XetStore, ImportRefusesContentThatIsNotItsSha256) {
  util::TempDir dir;
  DirectoryBlobs blobs(dir.path());
  XetStore store(dir.path(), blobs);
  ASSERT_TRUE(blobs.put("objects/aa/hello", "hello").ok());
  auto file = store.import_file("objects/aa/hello", util::sha256_hex("other"));
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().kind, util::ErrorKind::integrity);
  EXPECT_FALSE(store.file_for_sha256(util::sha256_hex("other")).has_value());
}

TEST(XetStore, UnknownAndMalformedNamesAreNotFound) {
  util::TempDir dir;
  DirectoryBlobs blobs(dir.path());
  XetStore store(dir.path(), blobs);
  EXPECT_FALSE(store.has_xorb("../../etc/passwd"));
  EXPECT_FALSE(store.xorb_layout(std::string(64, 'a')).ok());
  EXPECT_FALSE(store.file("x").ok());
  EXPECT_FALSE(store.file_for_sha256("../x").has_value());
  EXPECT_FALSE(store.chunk_location(std::string(64, '0')).has_value());
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::storage
