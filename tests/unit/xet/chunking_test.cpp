// Content-defined chunking: boundaries equal a byte-by-byte reading of hub-docs xet/chunking.md's
// pseudocode (the chunker skips hashing the first bytes of each chunk), whatever the pieces the
// input arrives in; size limits; hf_xet agreement is in hashing_test (file hashes).
#include "hub/xet/chunking.h"

#include <gtest/gtest.h>

#include "hub/xet/gear_table.h"
#include "xet_test_support.h"

namespace kb::hub::xet {
namespace {
namespace KB_UNITY_ID {

// The spec's pseudocode, literally.
std::vector<size_t> reference_chunk_lengths(std::string_view data) {
  std::vector<size_t> lengths;
  uint64_t h = 0;
  size_t start = 0;
  for (size_t i = 0; i < data.size(); ++i) {
    h = (h << 1) + kGearTable[uint8_t(data[i])];
    size_t size = i + 1 - start;
    if (size < kMinChunkSize) continue;
    if (size >= kMaxChunkSize || (h & 0xFFFF000000000000ull) == 0) {
      lengths.push_back(size);
      start = i + 1;
      h = 0;
    }
  }
  if (start < data.size()) lengths.push_back(data.size() - start);
  return lengths;
}

TEST(chunk_lengths, EqualTheSpecsByteByByteAlgorithm) {
  for (const char* kind : {"random", "low-entropy", "zeros"}) {
    std::string data = testing::generate(kind, 3'000'000, 11);
    auto lengths = chunk_lengths(data);
    EXPECT_EQ(lengths, reference_chunk_lengths(data)) << kind;
    EXPECT_GT(lengths.size(), 10u) << kind;
  }
}

// The first admissible boundary, at exactly kMinChunkSize bytes, depends on all of the last 64
// bytes (the chunker must not skip hashing any of them). Choose the last three bytes so that the
// spec's algorithm cuts there.
TEST(chunk_lengths, BoundaryAtExactlyTheMinimumSize) {
  std::string data = testing::generate("random", 3 * kMinChunkSize, 41);
  uint64_t prefix = 0;
  for (size_t i = 0; i + 3 < kMinChunkSize; ++i) prefix = (prefix << 1) + kGearTable[uint8_t(data[i])];
  bool found = false;
  for (int a = 0; a < 256 && !found; ++a) {
    for (int b = 0; b < 256 && !found; ++b) {
      for (int c = 0; c < 256 && !found; ++c) {
        uint64_t h = (((((prefix << 1) + kGearTable[a]) << 1) + kGearTable[b]) << 1) + kGearTable[c];
        if ((h & 0xFFFF000000000000ull) == 0) {
          data[kMinChunkSize - 3] = char(a);
          data[kMinChunkSize - 2] = char(b);
          data[kMinChunkSize - 1] = char(c);
          found = true;
        }
      }
    }
  }
  ASSERT_TRUE(found);
  ASSERT_EQ(reference_chunk_lengths(data).front(), kMinChunkSize);
  EXPECT_EQ(chunk_lengths(data), reference_chunk_lengths(data));
  // The oldest byte that still counts, 63 positions back, moves the boundary when changed.
  data[kMinChunkSize - 64] ^= 1;
  EXPECT_NE(reference_chunk_lengths(data).front(), kMinChunkSize);
  EXPECT_EQ(chunk_lengths(data), reference_chunk_lengths(data));
}

TEST(chunk_lengths, RespectMinimumAndMaximumExceptForTheLastChunk) {
  std::string data = testing::generate("random", 5'000'000, 3);
  auto lengths = chunk_lengths(data);
  size_t total = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    total += lengths[i];
    EXPECT_LE(lengths[i], kMaxChunkSize);
    if (i + 1 < lengths.size()) {
      EXPECT_GE(lengths[i], kMinChunkSize);
    }
  }
  EXPECT_EQ(total, data.size());
  // Random data averages about the 64 KiB target.
  double mean = double(data.size()) / double(lengths.size());
  EXPECT_GT(mean, 40'000);
  EXPECT_LT(mean, 100'000);
  // Zeros never match the mask: every chunk is forced at the maximum.
  auto zeros = chunk_lengths(std::string(1'000'000, '\0'));
  for (size_t i = 0; i + 1 < zeros.size(); ++i) EXPECT_EQ(zeros[i], kMaxChunkSize);
}

TEST(chunk_lengths, SmallAndEmptyInputs) {
  EXPECT_TRUE(chunk_lengths("").empty());
  EXPECT_EQ(chunk_lengths("x"), std::vector<size_t>{1});
  std::string below_minimum = testing::generate("random", kMinChunkSize - 1, 5);
  EXPECT_EQ(chunk_lengths(below_minimum), std::vector<size_t>{kMinChunkSize - 1});
}

TEST(Chunker, StreamingInAnyPiecesGivesTheSameChunks) {
  std::string data = testing::generate("random", 800'000, 9);
  auto expected = chunk_lengths(data);
  ASSERT_GT(expected.size(), 5u);
  for (size_t piece : {1u, 100u, 8127u, 8192u, 65536u, 200'000u}) {
    Chunker chunker;
    std::vector<size_t> lengths;
    std::string rebuilt;
    auto record = [&](std::string_view chunk) {
      lengths.push_back(chunk.size());
      rebuilt += chunk;
    };
    for (size_t at = 0; at < data.size(); at += piece) chunker.update(std::string_view(data).substr(at, piece), record);
    chunker.finish(record);
    EXPECT_EQ(lengths, expected) << "piece " << piece;
    EXPECT_EQ(rebuilt, data) << "piece " << piece;
  }
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::xet
