// Bulk stream: round trip in arbitrary chunkings, truncation and digest checks, unsafe paths.
#include "hub/protocol/bulk_format.h"

#include <gtest/gtest.h>

#include "util/fs.h"
#include "util/hash.h"

namespace kb::hub::protocol {
namespace {
namespace KB_UNITY_ID {

std::string make_stream(util::TempDir& dir, std::vector<std::pair<std::string, std::string>> files) {
  std::vector<BulkEntry> entries;
  int i = 0;
  for (auto& [path, content] : files) {
    auto source = dir.path() / ("src" + std::to_string(i++));
    EXPECT_TRUE(util::write_file_atomic(source, content).ok());
    entries.push_back({path, content.size(), util::sha256_hex(content), source, {}});
  }
  std::string out;
  EXPECT_TRUE(write_bulk_stream(entries, [&](const char* d, size_t n) { out.append(d, n); return true; }));
  return out;
}

TEST(BulkReader, RoundTripsInAnyChunking) {
  util::TempDir dir;
  std::string stream = make_stream(dir, {{"build/v/a.py", "print(1)\n"}, {"build/v/empty", ""},
                                         {"build/v/x.so", std::string("\0\n\x01{}", 5)}});
  for (size_t chunk : {1u, 3u, 7u, 4096u}) {
    util::TempDir out;
    BulkReader reader([&](const std::string& p) -> util::Result<std::filesystem::path> { return out.path() / p; });
    for (size_t at = 0; at < stream.size(); at += chunk) ASSERT_TRUE(reader.feed(std::string_view(stream).substr(at, chunk)).ok());
    ASSERT_TRUE(reader.finish().ok());
    EXPECT_EQ(reader.files().size(), 3u);
    EXPECT_EQ(*util::read_file(out.path() / "build/v/x.so"), std::string("\0\n\x01{}", 5));
  }
}

TEST(BulkReader, DetectsTruncationAndCorruption) {
  util::TempDir dir;
  std::string stream = make_stream(dir, {{"a", "hello"}});
  util::TempDir out;
  auto destination = [&](const std::string& p) -> util::Result<std::filesystem::path> { return out.path() / p; };
  BulkReader truncated(destination);
  ASSERT_TRUE(truncated.feed(stream.substr(0, stream.size() - 5)).ok());
  EXPECT_FALSE(truncated.finish().ok());
  std::string corrupt = stream;
  corrupt[corrupt.find("hello")] = 'j';
  BulkReader reader(destination);
  EXPECT_FALSE(reader.feed(corrupt).ok());
}

TEST(BulkReader, RefusesPathsEscapingTheDestination) {
  util::TempDir out;
  BulkReader reader([&](const std::string& p) -> util::Result<std::filesystem::path> { return out.path() / p; });
  EXPECT_FALSE(reader.feed("{\"path\":\"../evil\",\"size\":0,\"sha256\":\"\"}\n").ok());
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::protocol
