// Xorbs: the one hf_xet 1.8.0 uploaded (data/upload/, all three compression schemes) verifies
// under its name and decodes to the uploaded files; corrupt xorbs are refused with the right
// error kind and code; built xorbs round-trip, with and without the index footer.
#include "hub/xet/xorb.h"

#include <gtest/gtest.h>

#include <set>

#include "hub/xet/chunking.h"
#include "hub/xet/compression.h"
#include "hub/xet/errors.h"
#include "xet_test_support.h"

namespace kb::hub::xet {
namespace {
namespace KB_UNITY_ID {

struct Fixture {
  MerkleHash name{};
  std::string bytes;
};

Fixture uploaded_xorb() {
  for (const auto& entry : std::filesystem::directory_iterator(testing::data_dir() / "upload")) {
    if (entry.path().extension() == ".xorb") {
      auto name = hash_from_string(entry.path().stem().string());
      EXPECT_TRUE(name.ok());
      return {*name, testing::read_bytes(entry.path())};
    }
  }
  ADD_FAILURE() << "no .xorb in data/upload";
  return {};
}

void expect_error(const util::Result<XorbInfo>& result, util::ErrorKind kind, const char* code) {
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, kind) << result.error().message;
  EXPECT_EQ(result.error().code, code) << (result.error().causes.empty() ? "" : result.error().causes[0]);
}

void set_u24(std::string& bytes, size_t at, uint32_t value) {
  for (int i = 0; i < 3; ++i) bytes[at + size_t(i)] = char((value >> (8 * i)) & 0xFF);
}

TEST(verify_xorb, AcceptsTheXorbHfXetUploadedUnderItsName) {
  Fixture xorb = uploaded_xorb();
  auto info = verify_xorb(xorb.bytes, xorb.name);
  ASSERT_TRUE(info.ok()) << info.error().message << ": " << info.error().causes.at(0);
  EXPECT_EQ(info->chunks_size, xorb.bytes.size());  // uploaded without footer
  std::set<CompressionScheme> schemes;
  for (const auto& chunk : info->chunks) schemes.insert(chunk.compression);
  EXPECT_EQ(schemes.size(), 3u) << "the fixture should exercise none, LZ4 and byte grouping";
  auto all = decode_chunks(xorb.bytes);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), info->unpacked_size);
  // Re-chunking the decoded bytes reproduces the client's chunk hashes.
  size_t offset = 0;
  for (const auto& chunk : info->chunks) {
    EXPECT_EQ(chunk_hash(all->substr(offset, chunk.size)), chunk.hash);
    offset += chunk.size;
  }
}

TEST(verify_xorb, RefusesContentUnderAnotherNameAsAnIntegrityError) {
  Fixture xorb = uploaded_xorb();
  MerkleHash other = xorb.name;
  other[0] ^= 1;
  expect_error(verify_xorb(xorb.bytes, other), util::ErrorKind::integrity, error_code::kXorbHashMismatch);
}

TEST(verify_xorb, RefusesAChangedStoredByteAsAHashMismatch) {
  Fixture xorb = uploaded_xorb();
  auto info = parse_xorb(xorb.bytes);
  ASSERT_TRUE(info.ok());
  for (const auto& chunk : info->chunks) {
    if (chunk.compression != CompressionScheme::none) continue;
    std::string bytes = xorb.bytes;
    bytes[chunk.offset + kXorbChunkHeaderSize + 5] ^= 0x40;
    expect_error(verify_xorb(bytes, xorb.name), util::ErrorKind::integrity, error_code::kXorbHashMismatch);
    return;
  }
  FAIL() << "no stored chunk";
}

TEST(parse_xorb, RefusesMalformedFraming) {
  Fixture xorb = uploaded_xorb();
  auto info = parse_xorb(xorb.bytes);
  ASSERT_TRUE(info.ok());
  const XorbChunk& second = info->chunks.at(1);
  auto malformed = [&](std::string bytes, const char* what) {
    SCOPED_TRACE(what);
    expect_error(parse_xorb(bytes), util::ErrorKind::invalid, error_code::kMalformedXorb);
  };
  malformed("", "empty");
  malformed(xorb.bytes.substr(0, xorb.bytes.size() - 1), "truncated body");
  malformed(xorb.bytes.substr(0, second.offset + 5), "truncated header");
  std::string version = xorb.bytes;
  version[second.offset] = 1;
  malformed(version, "chunk version 1");
  std::string scheme = xorb.bytes;
  scheme[second.offset + 4] = 3;
  malformed(scheme, "unknown scheme");
  std::string oversize = xorb.bytes;
  set_u24(oversize, second.offset + 5, kMaxChunkSize + 1);
  malformed(oversize, "uncompressed size over 128 KiB");
  std::string wrong_size = xorb.bytes;
  set_u24(wrong_size, second.offset + 5, second.size - 1);
  malformed(wrong_size, "LZ4 data longer than declared");
  std::string trailing = xorb.bytes + "XETBLOB-not-a-footer";
  malformed(trailing, "garbage after the chunks");
}

TEST(parse_xorb, RefusesCorruptLz4Data) {
  Fixture xorb = uploaded_xorb();
  auto info = parse_xorb(xorb.bytes);
  ASSERT_TRUE(info.ok());
  for (const auto& chunk : info->chunks) {
    if (chunk.compression != CompressionScheme::lz4) continue;
    // Break the frame's magic number: no longer an LZ4 frame.
    std::string bytes = xorb.bytes;
    bytes[chunk.offset + kXorbChunkHeaderSize] ^= 0xFF;
    expect_error(parse_xorb(bytes), util::ErrorKind::invalid, error_code::kMalformedXorb);
    return;
  }
  FAIL() << "no LZ4 chunk";
}

TEST(parse_xorb, RefusesMoreThan64Mib) {
  std::string big(kMaxXorbSize + 1, '\0');
  expect_error(parse_xorb(big), util::ErrorKind::invalid, error_code::kXorbTooLarge);
}

std::vector<std::string> sample_chunks() {
  std::vector<std::string> chunks;
  std::string random = testing::generate("random", 400'000, 21);
  std::string text;
  for (int i = 0; text.size() < 300'000; ++i) text += "line " + std::to_string(i * 7919 % 1000) + " of some text\n";
  // Floats near 1 with noisy low mantissa bytes: byte grouping compresses them better than LZ4.
  std::string noise = testing::generate("random", 120'000, 23);
  std::string floats;
  for (size_t i = 0; i + 4 <= noise.size(); i += 4) {
    float value = 1.0f + float(uint8_t(noise[i]) | (uint16_t(uint8_t(noise[i + 1])) << 8)) * 1e-6f;
    floats.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  Chunker chunker;
  auto record = [&](std::string_view chunk) { chunks.emplace_back(chunk); };
  for (const auto& data : {random, text, floats}) {
    chunker.update(data, record);
    chunker.finish(record);
  }
  chunks.push_back("x");  // a one-byte chunk
  return chunks;
}

TEST(XorbBuilder, RoundTripsThroughParseAndDecode) {
  auto chunks = sample_chunks();
  XorbBuilder builder(/*try_byte_grouping=*/true);
  std::string all;
  std::vector<ChunkHashAndSize> hashes;
  for (const auto& chunk : chunks) {
    ASSERT_TRUE(builder.add_chunk(chunk));
    all += chunk;
    hashes.push_back({chunk_hash(chunk), chunk.size()});
  }
  SerializedXorb built = builder.finish();
  EXPECT_TRUE(builder.empty());
  EXPECT_EQ(built.info.hash, xorb_hash(hashes));
  EXPECT_LT(built.bytes.size(), all.size());  // something compressed
  std::set<CompressionScheme> schemes;
  for (const auto& chunk : built.info.chunks) schemes.insert(chunk.compression);
  EXPECT_EQ(schemes.size(), 3u);

  auto parsed = verify_xorb(built.bytes, built.info.hash);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->chunk_hashes(), hashes);
  auto decoded = decode_chunks(built.bytes);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, all);

  // A chunk range decodes to exactly those chunks.
  auto range = chunk_byte_range(*parsed, 2, 5);
  ASSERT_TRUE(range.ok());
  auto part = decode_chunks(std::string_view(built.bytes).substr(range->start, range->end - range->start));
  ASSERT_TRUE(part.ok());
  EXPECT_EQ(*part, chunks[2] + chunks[3] + chunks[4]);
  auto outside = chunk_byte_range(*parsed, 3, uint32_t(chunks.size() + 1));
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.error().code, error_code::kChunkRangeOutOfBounds);
  EXPECT_FALSE(chunk_byte_range(*parsed, 3, 3).ok());
}

TEST(write_xorb_footer, IsAcceptedByParseAndReadBackWithoutDecompressing) {
  auto chunks = sample_chunks();
  XorbBuilder builder;
  for (const auto& chunk : chunks) ASSERT_TRUE(builder.add_chunk(chunk));
  SerializedXorb built = builder.finish();
  std::string with_footer = built.bytes + write_xorb_footer(built.info);

  auto parsed = verify_xorb(with_footer, built.info.hash);
  ASSERT_TRUE(parsed.ok()) << parsed.error().causes.at(0);
  EXPECT_EQ(parsed->chunks_size, built.bytes.size());
  auto layout = read_xorb_footer(with_footer);
  ASSERT_TRUE(layout.ok()) << layout.error().causes.at(0);
  EXPECT_EQ(layout->hash, built.info.hash);
  EXPECT_EQ(layout->chunk_hashes(), built.info.chunk_hashes());
  EXPECT_EQ(layout->unpacked_size, built.info.unpacked_size);
  ASSERT_EQ(layout->chunks.size(), built.info.chunks.size());
  for (size_t i = 0; i < layout->chunks.size(); ++i) EXPECT_EQ(layout->chunks[i].offset, built.info.chunks[i].offset);

  // A footer that names other chunk hashes, or is cut, is refused.
  std::string wrong = with_footer;
  wrong[built.bytes.size() + 8 + 40 + 12] ^= 1;  // first chunk hash in the hash section
  expect_error(parse_xorb(wrong), util::ErrorKind::invalid, error_code::kMalformedXorb);
  expect_error(read_xorb_footer(built.bytes), util::ErrorKind::invalid, error_code::kMalformedXorb);
  expect_error(parse_xorb(with_footer.substr(0, with_footer.size() - 1)), util::ErrorKind::invalid,
               error_code::kMalformedXorb);
}

TEST(XorbBuilder, StopsBefore64Mib) {
  // Incompressible maximum-size chunks: they are stored, 8 + 128 KiB each.
  std::string data = testing::generate("random", kMaxChunkSize, 31);
  XorbBuilder builder;
  size_t added = 0;
  while (builder.add_chunk(data)) {
    ++added;
    data[0] = char(added);  // distinct chunks
  }
  EXPECT_EQ(added, kMaxXorbChunkData / (kMaxChunkSize + kXorbChunkHeaderSize));
  EXPECT_LE(builder.size(), kMaxXorbChunkData);
  SerializedXorb built = builder.finish();
  EXPECT_TRUE(parse_xorb(built.bytes).ok());
}

TEST(byte_group4, GroupsByPositionWithTheRemainderInTheFirstGroups) {
  EXPECT_EQ(byte_group4("ABCDabcd123"), "Aa1Bb2Cc3Dd");
  EXPECT_EQ(byte_ungroup4("Aa1Bb2Cc3Dd"), "ABCDabcd123");
  EXPECT_EQ(byte_group4("AB"), "AB");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::xet
