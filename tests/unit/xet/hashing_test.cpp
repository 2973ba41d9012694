// Xet hashes: the string form of hub-docs xet/api.md's example, and file hashes (chunking + chunk
// hashes + aggregated merkle tree + final keyed hash) equal to those of the real client, hf_xet,
// on the same generated inputs (data/hf_xet_file_hashes.json, data/refresh-hf-xet-reference).
#include "hub/xet/hashing.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "hub/xet/chunking.h"
#include "hub/xet/errors.h"
#include "xet_test_support.h"

namespace kb::hub::xet {
namespace {
namespace KB_UNITY_ID {

MerkleHash counting_hash() {
  MerkleHash hash;
  for (size_t i = 0; i < 32; ++i) hash[i] = uint8_t(i);
  return hash;
}

// The spec's example string lacks the byte `10` (62 digits); this is the full 64-digit value.
TEST(hash_to_string, ReversesEachEightByteGroupAsInTheSpecExample) {
  EXPECT_EQ(hash_to_string(counting_hash()), "07060504030201000f0e0d0c0b0a090817161514131211101f1e1d1c1b1a1918");
}

TEST(hash_from_string, InvertsHashToString) {
  auto parsed = hash_from_string("07060504030201000f0e0d0c0b0a090817161514131211101f1e1d1c1b1a1918");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, counting_hash());
}

TEST(hash_from_string, RefusesAnythingBut64LowercaseHexDigits) {
  for (std::string text : {std::string(63, '0'), std::string(65, '0'), std::string(64, 'g'),
                           std::string("07060504030201000F0E0D0C0B0A0908171615141312111F1E1D1C1B1A1918"), std::string()}) {
    auto parsed = hash_from_string(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.error().kind, util::ErrorKind::invalid);
    EXPECT_EQ(parsed.error().code, error_code::kMalformedHash);
  }
}

TEST(xorb_hash, OfOneChunkIsTheChunkHashAndOfNoneAllZero) {
  ChunkHashAndSize one{chunk_hash("abc"), 3};
  EXPECT_EQ(xorb_hash(std::span(&one, 1)), one.hash);
  EXPECT_EQ(xorb_hash({}), MerkleHash{});
  EXPECT_EQ(file_hash({}), MerkleHash{});
  // A file of one chunk: that hash, keyed once more with the zero key.
  EXPECT_EQ(file_hash(std::span(&one, 1)), keyed_hash(MerkleHash{}, one.hash));
}

TEST(xorb_hash, DependsOnChunkSizesAndOrder) {
  std::vector<ChunkHashAndSize> chunks;
  for (int i = 0; i < 20; ++i) chunks.push_back({chunk_hash(std::to_string(i)), uint64_t(1000 + i)});
  MerkleHash base = xorb_hash(chunks);
  auto resized = chunks;
  resized[7].size += 1;
  EXPECT_NE(xorb_hash(resized), base);
  auto swapped = chunks;
  std::swap(swapped[3], swapped[4]);
  EXPECT_NE(xorb_hash(swapped), base);
}

TEST(file_hash, EqualsHfXetOnGeneratedInputs) {
  auto json = nlohmann::json::parse(testing::read_bytes(testing::data_dir() / "hf_xet_file_hashes.json"));
  ASSERT_GE(json["cases"].size(), 10u);
  for (const auto& c : json["cases"]) {
    std::string kind = c["kind"];
    size_t size = c["size"];
    std::string data = testing::generate(kind, size, c["seed"]);
    auto chunks = chunk_and_hash(data);
    EXPECT_EQ(hash_to_string(file_hash(chunks)), c["file_hash"].get<std::string>())
        << kind << " " << size << " bytes (" << chunks.size() << " chunks)";
  }
}

TEST(is_global_dedup_eligible, LooksAtTheLastEightByteGroupMod1024) {
  MerkleHash hash{};
  EXPECT_TRUE(is_global_dedup_eligible(hash));
  hash[24] = 1;  // low byte of the last little-endian u64
  EXPECT_FALSE(is_global_dedup_eligible(hash));
  hash[24] = 0;
  hash[25] = 4;  // 1024 = 4 << 8
  EXPECT_TRUE(is_global_dedup_eligible(hash));
  hash[0] = 1;  // other groups do not matter
  EXPECT_TRUE(is_global_dedup_eligible(hash));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::xet
