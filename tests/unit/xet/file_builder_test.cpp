// FileBuilder (server-side conversion to Xet form): the file hash equals hf_xet's for the same
// bytes, the xorbs it hands out verify, its description passes the upload verification, and the
// file reconstructs; content over 64 MiB spans several xorbs.
#include "hub/xet/file_builder.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "hub/xet/reconstruction.h"
#include "util/hash.h"
#include "xet_test_support.h"

namespace kb::hub::xet {
namespace {
namespace KB_UNITY_ID {

struct Built {
  FileInfo file;
  std::map<MerkleHash, SerializedXorb> xorbs;
};

Built build(std::string_view data, size_t piece) {
  Built built;
  FileBuilder builder([&](SerializedXorb xorb) -> util::Status {
    auto verified = verify_xorb(xorb.bytes, xorb.info.hash);
    EXPECT_TRUE(verified.ok());
    built.xorbs.emplace(xorb.info.hash, std::move(xorb));
    return {};
  });
  for (size_t at = 0; at < data.size(); at += piece) EXPECT_TRUE(builder.update(data.substr(at, piece)).ok());
  auto file = builder.finish();
  EXPECT_TRUE(file.ok());
  built.file = std::move(*file);
  return built;
}

std::string reconstruct(const Built& built) {
  std::string out;
  for (const auto& term : built.file.terms) {
    const SerializedXorb& xorb = built.xorbs.at(term.xorb_hash);
    auto range = chunk_byte_range(xorb.info, term.chunk_begin, term.chunk_end);
    out += *decode_chunks(std::string_view(xorb.bytes).substr(range->start, range->end - range->start));
  }
  return out;
}

TEST(FileBuilder, FileHashEqualsHfXetsAndTheDescriptionVerifies) {
  auto json = nlohmann::json::parse(testing::read_bytes(testing::data_dir() / "hf_xet_file_hashes.json"));
  for (const auto& c : json["cases"]) {
    if (c["size"].get<size_t>() < 1'000'000) continue;
    std::string data = testing::generate(c["kind"], c["size"], c["seed"]);
    Built built = build(data, 100'003);
    EXPECT_EQ(hash_to_string(built.file.file_hash), c["file_hash"].get<std::string>()) << c["kind"];
    EXPECT_EQ(testing::hex(std::string_view(reinterpret_cast<const char*>(built.file.sha256->data()), 32)),
              util::sha256_hex(data));
    EXPECT_EQ(built.file.size(), data.size());
    EXPECT_EQ(reconstruct(built), data);
    Shard shard;
    shard.files.push_back(built.file);
    for (const auto& [hash, xorb] : built.xorbs) shard.xorbs.push_back(xorb_entry(xorb.info, xorb.bytes.size()));
    auto status = verify_uploaded_shard(*parse_shard(serialize_shard(shard)), [&](const MerkleHash& hash)
                                            -> util::Result<std::vector<ChunkHashAndSize>> {
      return built.xorbs.at(hash).info.chunk_hashes();
    });
    EXPECT_TRUE(status.ok()) << status.error().causes.at(0);
  }
}

TEST(FileBuilder, ContentOver64MibSpansSeveralXorbs) {
  std::string data = testing::generate("random", kMaxXorbChunkData + 3'000'000, 77);
  Built built = build(data, 1 << 20);
  EXPECT_EQ(built.xorbs.size(), 2u);
  EXPECT_EQ(built.file.terms.size(), 2u);
  EXPECT_EQ(built.file.file_hash, file_hash(chunk_and_hash(data)));
  EXPECT_EQ(reconstruct(built), data);
}

TEST(FileBuilder, EmptyContentHasNoTermsAndTheZeroHash) {
  Built built = build("", 1);
  EXPECT_TRUE(built.file.terms.empty());
  EXPECT_TRUE(built.xorbs.empty());
  EXPECT_EQ(built.file.file_hash, MerkleHash{});
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::xet
