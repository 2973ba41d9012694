// Xet hashes (hub-docs xet/hashing.md); the keys are the spec's DATA_KEY, INTERNAL_NODE_KEY and
// VERIFICATION_KEY. The aggregated tree's shape (cut after a child whose last u64 is 0 mod 4, at
// least 2 and at most 9 children per node) is xet-core's, which the spec defers to.
#include "hub/xet/hashing.h"

#include <cstring>
#include <vector>

#include "hub/xet/blake3.h"
#include "hub/xet/errors.h"

namespace kb::hub::xet {
namespace {

constexpr Blake3Key kDataKey = {102, 151, 245, 119, 91,  149, 80,  222, 49,  53, 203, 172, 165, 151, 24,  28,
                                157, 228, 33,  16,  155, 235, 43,  88,  180, 208, 176, 75, 147, 173, 242, 41};
constexpr Blake3Key kInternalNodeKey = {1,   126, 197, 199, 165, 71,  41,  150, 253, 148, 102,
                                        102, 180, 138, 2,   230, 93,  221, 83,  111, 55,  199,
                                        109, 210, 248, 99,  82,  230, 74,  83,  113, 63};
constexpr Blake3Key kVerificationKey = {127, 24,  87,  214, 206, 86,  237, 102, 18,  127, 249,
                                        19,  231, 165, 195, 243, 164, 205, 38,  213, 181, 219,
                                        73,  230, 65,  36,  152, 127, 40,  251, 148, 195};

constexpr uint64_t kMeanBranchingFactor = 4;
constexpr size_t kMaxChildren = 2 * kMeanBranchingFactor + 1;

// The i-th 8-byte group of a hash as a little-endian u64.
uint64_t hash_word(const MerkleHash& hash, size_t i) {
  uint64_t word = 0;
  for (int byte = 7; byte >= 0; --byte) word = (word << 8) | hash[8 * i + size_t(byte)];
  return word;
}

// Number of nodes (from the front of `nodes`) that form the next parent.
size_t next_cut(std::span<const ChunkHashAndSize> nodes) {
  if (nodes.size() <= 2) return nodes.size();
  size_t end = std::min(kMaxChildren, nodes.size());
  for (size_t i = 2; i < end; ++i) {
    if (hash_word(nodes[i].hash, 3) % kMeanBranchingFactor == 0) return i + 1;
  }
  return end;
}

ChunkHashAndSize merge(std::span<const ChunkHashAndSize> children) {
  std::string text;
  text.reserve(children.size() * 90);
  uint64_t total = 0;
  for (const auto& child : children) {
    text += hash_to_string(child.hash);
    text += " : ";
    text += std::to_string(child.size);
    text += '\n';
    total += child.size;
  }
  return {blake3_keyed_hash(kInternalNodeKey, text), total};
}

}  // namespace

std::string hash_to_string(const MerkleHash& hash) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(64, '0');
  for (size_t group = 0; group < 4; ++group) {
    for (size_t i = 0; i < 8; ++i) {
      uint8_t byte = hash[8 * group + 7 - i];
      out[16 * group + 2 * i] = kDigits[byte >> 4];
      out[16 * group + 2 * i + 1] = kDigits[byte & 0xF];
    }
  }
  return out;
}

util::Result<MerkleHash> hash_from_string(std::string_view text) {
  auto malformed = [&] {
    util::Error error(util::ErrorKind::invalid, "Invalid Xet hash `" + std::string(text.substr(0, 80)) + "`");
    error.code = error_code::kMalformedHash;
    return std::move(error).with_cause("a hash is 64 lowercase hexadecimal digits");
  };
  if (text.size() != 64) return malformed();
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  MerkleHash hash{};
  for (size_t group = 0; group < 4; ++group) {
    for (size_t i = 0; i < 8; ++i) {
      int high = nibble(text[16 * group + 2 * i]);
      int low = nibble(text[16 * group + 2 * i + 1]);
      if (high < 0 || low < 0) return malformed();
      hash[8 * group + 7 - i] = uint8_t(high << 4 | low);
    }
  }
  return hash;
}

MerkleHash chunk_hash(std::string_view chunk) { return blake3_keyed_hash(kDataKey, chunk); }

MerkleHash xorb_hash(std::span<const ChunkHashAndSize> chunks) {
  if (chunks.empty()) return MerkleHash{};
  std::vector<ChunkHashAndSize> level(chunks.begin(), chunks.end());
  while (level.size() > 1) {
    std::vector<ChunkHashAndSize> parents;
    parents.reserve(level.size() / 2 + 1);
    std::span<const ChunkHashAndSize> rest(level);
    while (!rest.empty()) {
      size_t cut = next_cut(rest);
      parents.push_back(merge(rest.first(cut)));
      rest = rest.subspan(cut);
    }
    level = std::move(parents);
  }
  return level.front().hash;
}

MerkleHash file_hash(std::span<const ChunkHashAndSize> chunks) {
  if (chunks.empty()) return MerkleHash{};
  return keyed_hash(MerkleHash{}, xorb_hash(chunks));
}

MerkleHash verification_range_hash(std::span<const MerkleHash> chunk_hashes) {
  Blake3 hasher(kVerificationKey);
  for (const auto& hash : chunk_hashes) {
    hasher.update(std::string_view(reinterpret_cast<const char*>(hash.data()), hash.size()));
  }
  return hasher.digest();
}

MerkleHash keyed_hash(const MerkleHash& key, const MerkleHash& hash) {
  return blake3_keyed_hash(key, std::string_view(reinterpret_cast<const char*>(hash.data()), hash.size()));
}

bool is_global_dedup_eligible(const MerkleHash& chunk_hash) { return hash_word(chunk_hash, 3) % 1024 == 0; }

}  // namespace kb::hub::xet
