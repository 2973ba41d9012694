// Shards: the one hf_xet 1.8.0 uploaded (data/upload/) parses, re-serializes byte for byte and
// verifies against its xorb; its files decode to the uploaded bytes (SHA-256 of files.json);
// tampered or malformed shards are refused with the right error kind and code.
#include "hub/xet/shard.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "hub/xet/errors.h"
#include "hub/xet/xorb.h"
#include "util/hash.h"
#include "xet_test_support.h"

namespace kb::hub::xet {
namespace {
namespace KB_UNITY_ID {

struct Upload {
  std::string shard_bytes;
  std::string xorb_bytes;
  XorbInfo xorb;
};

Upload uploaded() {
  Upload upload;
  upload.shard_bytes = testing::read_bytes(testing::data_dir() / "upload/upload.shard");
  for (const auto& entry : std::filesystem::directory_iterator(testing::data_dir() / "upload")) {
    if (entry.path().extension() == ".xorb") upload.xorb_bytes = testing::read_bytes(entry.path());
  }
  auto xorb = parse_xorb(upload.xorb_bytes);
  EXPECT_TRUE(xorb.ok());
  if (xorb) upload.xorb = *xorb;
  return upload;
}

XorbChunksLookup lookup_in(const XorbInfo& xorb) {
  return [xorb](const MerkleHash& hash) -> util::Result<std::vector<ChunkHashAndSize>> {
    if (hash == xorb.hash) return xorb.chunk_hashes();
    util::Error error(util::ErrorKind::not_found, "unknown xorb");
    error.code = error_code::kUnknownXorb;
    return error;
  };
}

void expect_error(const util::Status& status, util::ErrorKind kind, const char* code) {
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().kind, kind) << status.error().message;
  EXPECT_EQ(status.error().code, code) << (status.error().causes.empty() ? "" : status.error().causes[0]);
}

void expect_malformed(std::string_view bytes, const char* what) {
  SCOPED_TRACE(what);
  auto parsed = parse_shard(bytes);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().kind, util::ErrorKind::invalid);
  EXPECT_EQ(parsed.error().code, error_code::kMalformedShard);
}

TEST(parse_shard, ReadsTheShardHfXetUploadedAndSerializesItBackByteForByte) {
  Upload upload = uploaded();
  auto shard = parse_shard(upload.shard_bytes);
  ASSERT_TRUE(shard.ok()) << shard.error().causes.at(0);
  EXPECT_FALSE(shard->footer.has_value());
  EXPECT_EQ(shard->files.size(), 3u);
  ASSERT_EQ(shard->xorbs.size(), 1u);
  EXPECT_EQ(shard->xorbs[0].xorb_hash, upload.xorb.hash);
  EXPECT_EQ(serialize_shard(*shard), upload.shard_bytes);
}

TEST(parse_shard, FilesDecodeToTheUploadedBytes) {
  Upload upload = uploaded();
  auto shard = parse_shard(upload.shard_bytes);
  ASSERT_TRUE(shard.ok());
  auto manifest = nlohmann::json::parse(testing::read_bytes(testing::data_dir() / "upload/files.json"));
  std::set<std::string> expected;
  for (const auto& file : manifest) expected.insert(file["sha256"].get<std::string>());
  for (const auto& file : shard->files) {
    std::string content;
    for (const auto& term : file.terms) {
      auto range = chunk_byte_range(upload.xorb, term.chunk_begin, term.chunk_end);
      ASSERT_TRUE(range.ok());
      auto bytes = decode_chunks(std::string_view(upload.xorb_bytes).substr(range->start, range->end - range->start));
      ASSERT_TRUE(bytes.ok());
      content += *bytes;
    }
    ASSERT_TRUE(file.sha256.has_value());
    std::string sha256 = util::sha256_hex(content);
    EXPECT_EQ(testing::hex(std::string_view(reinterpret_cast<const char*>(file.sha256->data()), 32)), sha256);
    EXPECT_EQ(expected.count(sha256), 1u);
    EXPECT_EQ(content.size(), file.size());
  }
}

TEST(verify_uploaded_shard, AcceptsTheShardHfXetUploaded) {
  Upload upload = uploaded();
  auto shard = parse_shard(upload.shard_bytes);
  ASSERT_TRUE(shard.ok());
  auto status = verify_uploaded_shard(*shard, lookup_in(upload.xorb));
  EXPECT_TRUE(status.ok()) << status.error().message << ": " << status.error().causes.at(0);
}

TEST(check_shard_cost, AdmitsHfXetsShardAndRefusesASmallShardNamingManyChunks) {
  Upload upload = uploaded();
  auto shard = parse_shard(upload.shard_bytes);
  ASSERT_TRUE(shard.ok());
  EXPECT_TRUE(check_shard_cost(*shard, upload.shard_bytes.size()).ok());
  // One file whose 300 terms each name chunks [0, 8000) of one xorb: 2.4 million chunk hashes
  // from a shard of a few KiB (docs/hub-xet.md, "Verification cost").
  Shard costly;
  FileInfo file;
  for (int t = 0; t < 300; ++t) file.terms.push_back(FileTerm{shard->xorbs.front().xorb_hash, 1, 0, 8000, {}});
  costly.files.push_back(file);
  auto status = check_shard_cost(costly, serialize_shard(costly).size());
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, error_code::kShardTooCostly);
  // Linear: the same terms in a shard of 150 KiB are within its budget.
  EXPECT_TRUE(check_shard_cost(costly, 150 * 1024).ok());
  EXPECT_EQ(verification_budget(1).content_bytes, kVerifyBytesFloor);
  EXPECT_EQ(verification_budget(1 << 20).content_bytes, (uint64_t{1} << 20) * kVerifyBytesPerShardByte);
}

TEST(verify_uploaded_shard, RefusesTamperedHashesSizesRangesAndUnknownXorbs) {
  Upload upload = uploaded();
  Shard shard = *parse_shard(upload.shard_bytes);
  auto lookup = lookup_in(upload.xorb);
  {
    Shard s = shard;
    (*s.files[0].terms[0].verification)[3] ^= 1;
    expect_error(verify_uploaded_shard(s, lookup), util::ErrorKind::integrity, error_code::kShardVerificationFailed);
  }
  {
    Shard s = shard;
    s.files[1].file_hash[0] ^= 1;
    expect_error(verify_uploaded_shard(s, lookup), util::ErrorKind::integrity, error_code::kShardVerificationFailed);
  }
  {
    Shard s = shard;
    s.files[2].terms[0].unpacked_size += 1;
    expect_error(verify_uploaded_shard(s, lookup), util::ErrorKind::integrity, error_code::kShardVerificationFailed);
  }
  {
    Shard s = shard;
    s.files[0].terms[0].verification.reset();
    expect_error(verify_uploaded_shard(s, lookup), util::ErrorKind::integrity, error_code::kShardVerificationFailed);
  }
  {
    Shard s = shard;
    s.files[0].terms[0].chunk_end = uint32_t(upload.xorb.chunks.size() + 1);
    expect_error(verify_uploaded_shard(s, lookup), util::ErrorKind::invalid, error_code::kChunkRangeOutOfBounds);
  }
  {
    Shard s = shard;
    s.files[0].terms[0].xorb_hash[0] ^= 1;
    expect_error(verify_uploaded_shard(s, lookup), util::ErrorKind::not_found, error_code::kUnknownXorb);
  }
  {
    Shard s = shard;
    s.xorbs[0].chunks[1].unpacked_size += 1;
    expect_error(verify_uploaded_shard(s, lookup), util::ErrorKind::integrity, error_code::kShardVerificationFailed);
  }
}

TEST(parse_shard, RefusesMalformedShards) {
  Upload upload = uploaded();
  const std::string& good = upload.shard_bytes;
  expect_malformed("", "empty");
  std::string magic = good;
  magic[3] ^= 1;
  expect_malformed(magic, "wrong magic");
  std::string version = good;
  version[32] = 3;
  expect_malformed(version, "header version 3");
  expect_malformed(good.substr(0, good.size() - 48), "no CAS bookend");
  expect_malformed(good + std::string(48, '\0'), "trailing bytes");
  std::string footer_size = good;
  footer_size[40] = 100;
  expect_malformed(footer_size, "footer size 100");
  std::string flags = good;
  flags[48 + 32] = 1;  // first file's flags: an unknown low bit
  expect_malformed(flags, "unknown file flags");
  std::string count = good;
  count[48 + 36] = char(0xFF);  // first file claims 255+ terms
  expect_malformed(count, "terms past the end");

  // Verification entries on some files but not others.
  Shard mixed = *parse_shard(good);
  for (auto& term : mixed.files[1].terms) term.verification.reset();
  expect_malformed(serialize_shard(mixed), "verification on some files only");
  // An empty chunk range.
  Shard empty_range = *parse_shard(good);
  empty_range.files[0].terms[0].chunk_end = empty_range.files[0].terms[0].chunk_begin;
  expect_malformed(serialize_shard(empty_range), "empty chunk range");
}

TEST(parse_shard, RefusesMoreThan64Mib) {
  auto parsed = parse_shard(std::string(kMaxShardSize + 1, '\0'));
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().code, error_code::kShardTooLarge);
}

TEST(serialize_shard, GlobalDedupAnswersWithFooterRoundTrip) {
  Upload upload = uploaded();
  Shard answer;
  answer.xorbs.push_back(xorb_entry(upload.xorb, upload.xorb_bytes.size()));
  MerkleHash key{};
  key[5] = 42;
  for (auto& chunk : answer.xorbs[0].chunks) chunk.chunk_hash = keyed_hash(key, chunk.chunk_hash);
  answer.footer = ShardFooter{key, 1'700'000'000, 1'700'600'000};
  std::string bytes = serialize_shard(answer);
  EXPECT_EQ(bytes.size(), 48 + 48 + 48 * (1 + upload.xorb.chunks.size()) + 48 + 200);
  auto parsed = parse_shard(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.error().causes.at(0);
  EXPECT_EQ(*parsed, answer);
  // Footer offsets must point at the sections.
  std::string bad_offset = bytes;
  bad_offset[bytes.size() - 200 + 16] ^= 1;  // cas_info_offset
  expect_malformed(bad_offset, "footer offsets");
  std::string bad_version = bytes;
  bad_version[bytes.size() - 200] = 2;
  expect_malformed(bad_version, "footer version 2");
}

// The dedup answer for the uploaded xorb, as kernel-hub would serve it (fixed key and times).
Shard dedup_answer(const Upload& upload) {
  Shard answer;
  answer.xorbs.push_back(xorb_entry(upload.xorb, upload.xorb_bytes.size()));
  MerkleHash key{};
  for (size_t i = 0; i < key.size(); ++i) key[i] = uint8_t(i * 7 + 3);
  for (auto& chunk : answer.xorbs[0].chunks) chunk.chunk_hash = keyed_hash(key, chunk.chunk_hash);
  answer.footer = ShardFooter{key, 1'700'000'000, 4'102'444'800};
  return answer;
}

// data/dedup/answer.shard is what hf_xet 1.8.0 was served for every global dedup query when it
// uploaded the same files again; it then uploaded no xorb, only data/dedup/upload.shard, whose
// terms point into the known xorb. Pinning the bytes pins the footer layout the client accepts
// (lookup-table offsets at the footer: zeros made it abort).
TEST(serialize_shard, WritesDedupAnswersHfXetDeduplicatesAgainst) {
  Upload upload = uploaded();
  std::string answer = serialize_shard(dedup_answer(upload));
  auto golden = testing::data_dir() / "dedup/answer.shard";
  if (std::getenv("KB_XET_WRITE_GOLDEN")) {
    std::ofstream(golden, std::ios::binary) << answer;
  }
  EXPECT_EQ(answer, testing::read_bytes(golden))
      << "rewrite with KB_XET_WRITE_GOLDEN=1, then data/refresh-hf-xet-reference --dedup";

  auto client_shard = parse_shard(testing::read_bytes(testing::data_dir() / "dedup/upload.shard"));
  ASSERT_TRUE(client_shard.ok());
  EXPECT_TRUE(client_shard->xorbs.empty());  // nothing new
  EXPECT_EQ(client_shard->files.size(), 3u);
  for (const auto& file : client_shard->files) {
    for (const auto& term : file.terms) EXPECT_EQ(term.xorb_hash, upload.xorb.hash);
  }
  auto status = verify_uploaded_shard(*client_shard, lookup_in(upload.xorb));
  EXPECT_TRUE(status.ok()) << status.error().causes.at(0);
}

TEST(xorb_entry, MatchesTheCasInfoTheClientSent) {
  Upload upload = uploaded();
  Shard shard = *parse_shard(upload.shard_bytes);
  XorbEntry entry = xorb_entry(upload.xorb, upload.xorb_bytes.size());
  EXPECT_EQ(entry.chunks, shard.xorbs[0].chunks);
  EXPECT_EQ(entry.unpacked_size, shard.xorbs[0].unpacked_size);
  // hf_xet 1.8.0 leaves num_bytes_on_disk at 0; ours records the serialized size.
  EXPECT_EQ(entry.serialized_size, upload.xorb_bytes.size());
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::xet
