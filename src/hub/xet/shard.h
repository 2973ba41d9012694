// The shard format (hub-docs xet/shard.md): a 48-byte header (32-byte magic, version 2, footer
// size), the file info section (per file: header with file hash, flags and term count; its terms;
// with flag bit 31 one verification entry per term; with bit 30 a sha256 entry; a bookend), the
// CAS info section (per xorb: header with hash, chunk count, unpacked and serialized sizes; one
// entry per chunk; a bookend) and an optional 200-byte footer (version 1: section offsets, the
// chunk-hash key of global dedup answers, timestamps). Uploads come without footer. The footer's
// "reserved" fields are written as xet-core reads them (empty lookup tables at the footer, byte
// totals): hf_xet 1.8.0 fails on a dedup answer whose lookup-table offsets are zero.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hub/xet/hashing.h"
#include "util/result.h"

namespace kb::hub::xet {

inline constexpr uint64_t kMaxShardSize = 64ull * 1024 * 1024;  // the spec's per-shard upload limit

// One term of a file reconstruction: chunks [chunk_begin, chunk_end) of a xorb.
struct FileTerm {
  MerkleHash xorb_hash{};
  uint32_t unpacked_size = 0;  // bytes the term contributes
  uint32_t chunk_begin = 0;
  uint32_t chunk_end = 0;      // exclusive
  std::optional<MerkleHash> verification;  // the term's verification_range_hash (uploads carry it)
  bool operator==(const FileTerm&) const = default;
};

struct FileInfo {
  MerkleHash file_hash{};
  std::vector<FileTerm> terms;
  // SHA-256 digest of the content (metadata ext), in the usual byte order: the shard stores it
  // like a MerkleHash (8-byte groups reversed), parse/serialize convert.
  std::optional<std::array<uint8_t, 32>> sha256;
  uint64_t size() const;  // sum of the terms' unpacked sizes
  bool operator==(const FileInfo&) const = default;
};

struct XorbChunkEntry {
  MerkleHash chunk_hash{};
  uint32_t byte_start = 0;     // the chunk's offset in the xorb's unpacked bytes
  uint32_t unpacked_size = 0;
  bool operator==(const XorbChunkEntry&) const = default;
};

struct XorbEntry {
  MerkleHash xorb_hash{};
  uint32_t unpacked_size = 0;    // num_bytes_in_cas: sum of the chunks' sizes
  uint32_t serialized_size = 0;  // num_bytes_on_disk: the uploaded xorb's length
  std::vector<XorbChunkEntry> chunks;
  bool operator==(const XorbEntry&) const = default;
};

struct ShardFooter {
  MerkleHash chunk_hash_key{};  // non-zero: CAS chunk hashes are keyed_hash(key, chunk hash)
  uint64_t creation_timestamp = 0;
  uint64_t key_expiry = 0;
  bool operator==(const ShardFooter&) const = default;
};

struct Shard {
  std::vector<FileInfo> files;
  std::vector<XorbEntry> xorbs;
  std::optional<ShardFooter> footer;
  bool operator==(const Shard&) const = default;
};

// Structural parse (code kShardTooLarge over kMaxShardSize, otherwise kMalformedShard): magic and
// versions, every entry inside the bytes, bookends, verification entries on every file or none,
// no trailing bytes, footer offsets consistent, no unknown file flags, non-empty term chunk
// ranges. Hashes are not checked here (verify_uploaded_shard).
util::Result<Shard> parse_shard(std::string_view bytes);
// The inverse of parse_shard: parse_shard(serialize_shard(s)) == s (offsets computed here).
std::string serialize_shard(const Shard& shard);

// A xorb's chunk list as the store knows it (from its verified upload); not_found/kUnknownXorb
// when the store lacks it.
using XorbChunksLookup = std::function<util::Result<std::vector<ChunkHashAndSize>>(const MerkleHash& xorb_hash)>;

// Checks an uploaded shard against the stored xorbs: every file has verification entries; each
// term's range lies inside its xorb, its unpacked size is the sum of its chunks' sizes, its
// verification hash is verification_range_hash of its chunk hashes; the file hash is file_hash of
// all its chunks; each CAS info block matches the stored xorb (hash, chunk hashes and sizes).
// Errors: kShardVerificationFailed (ErrorKind::integrity), kUnknownXorb, kChunkRangeOutOfBounds.
util::Status verify_uploaded_shard(const Shard& shard, const XorbChunksLookup& lookup);

// What verifying a shard of `shard_bytes` may cost (docs/hub-xet.md, "Verification cost"):
// linear in the shard's size, so a small shard cannot make the server hash and read back
// gigabytes. `chunk_references`: the chunks its file terms name, summed (each is hashed);
// `content_bytes`: the bytes of its new files read back to check their SHA-256.
struct VerificationBudget {
  uint64_t chunk_references = 0;
  uint64_t content_bytes = 0;
};
inline constexpr uint64_t kVerifyChunksFloor = uint64_t{1} << 20;
inline constexpr uint64_t kVerifyChunksPerShardByte = 16;  // hf_xet: about 1 per 48 bytes (CAS info)
inline constexpr uint64_t kVerifyBytesFloor = uint64_t{64} << 20;
inline constexpr uint64_t kVerifyBytesPerShardByte = 2048;  // hf_xet: about 1365 (64 KiB chunks, 48-byte entries)
VerificationBudget verification_budget(uint64_t shard_bytes);
// The shard's file terms name at most the budget's chunk references (code kShardTooCostly).
util::Status check_shard_cost(const Shard& shard, uint64_t shard_bytes);

}  // namespace kb::hub::xet

namespace kb::hub::xet {

struct XorbInfo;
// The CAS info block describing a parsed or built xorb of `serialized_size` bytes.
XorbEntry xorb_entry(const XorbInfo& xorb, uint64_t serialized_size);

}  // namespace kb::hub::xet
