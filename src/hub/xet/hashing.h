// The hashes of the Xet protocol (hub-docs xet/hashing.md, xet/api.md): every chunk, xorb and file
// is named by a 32-byte MerkleHash. Chunk hashes are keyed BLAKE3 of the chunk bytes (DATA_KEY);
// xorb hashes are the root of the aggregated merkle tree over (chunk hash, chunk size) pairs
// (INTERNAL_NODE_KEY); file hashes are that root hashed again with an all-zero key; term
// verification hashes are keyed BLAKE3 of the concatenated raw chunk hashes (VERIFICATION_KEY).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kb::hub::xet {

using MerkleHash = std::array<uint8_t, 32>;

// A chunk as the merkle tree sees it: its hash and its (uncompressed) length.
struct ChunkHashAndSize {
  MerkleHash hash{};
  uint64_t size = 0;
  bool operator==(const ChunkHashAndSize&) const = default;
};

// The string form of a hash used in every API path and JSON field: each 8-byte group read as a
// little-endian u64, printed as 16 lowercase hex digits, groups in order (NOT plain byte hex).
std::string hash_to_string(const MerkleHash& hash);
// Inverse of hash_to_string; accepts exactly 64 lowercase hex digits (error code kMalformedHash).
util::Result<MerkleHash> hash_from_string(std::string_view text);

// Keyed BLAKE3 of a chunk's bytes with DATA_KEY.
MerkleHash chunk_hash(std::string_view chunk);
// Root of the aggregated merkle tree (mean branching factor 4, 2..9 children per node, a node
// ends after a child whose hash's last u64 is 0 mod 4). One chunk: its own hash; none: all zero.
MerkleHash xorb_hash(std::span<const ChunkHashAndSize> chunks);
// xorb_hash of the file's chunks, keyed-hashed once more with an all-zero key; all zero if empty.
MerkleHash file_hash(std::span<const ChunkHashAndSize> chunks);
// Keyed BLAKE3 (VERIFICATION_KEY) of the raw 32-byte chunk hashes of a term's chunk range.
MerkleHash verification_range_hash(std::span<const MerkleHash> chunk_hashes);
// Keyed BLAKE3 of a hash with `key`: the chunk-hash protection of global dedup answers
// (shard footer's chunk_hash_hmac_key), and the file hash's final step (all-zero key).
MerkleHash keyed_hash(const MerkleHash& key, const MerkleHash& hash);

// Whether a chunk hash is eligible for the global dedup query (its last u64 is 0 mod 1024).
bool is_global_dedup_eligible(const MerkleHash& chunk_hash);

}  // namespace kb::hub::xet
