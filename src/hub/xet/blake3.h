// BLAKE3 (https://github.com/BLAKE3-team/BLAKE3-specs), written from its specification: the plain
// hash and the keyed mode, with extendable output. Xet names every chunk, xorb and file by keyed
// BLAKE3 hashes (hashing.h), and Debian packages no BLAKE3 library, hence this portable version
// (one compress function over 64-byte blocks, 1 KiB chunks merged on a stack of chaining values;
// no SIMD). Checked against the official test vectors (tests/unit/xet/data/blake3_vectors.json).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kb::hub::xet {

using Blake3Key = std::array<uint8_t, 32>;
using Blake3Digest = std::array<uint8_t, 32>;

// Incremental BLAKE3: update() with pieces of any size, then digest() (does not consume the state).
class Blake3 {
 public:
  Blake3();                                // plain hash
  explicit Blake3(const Blake3Key& key);   // keyed hash
  void update(std::string_view data);
  Blake3Digest digest() const;
  // Extendable output: the first `length` bytes of the output stream (digest() is its first 32).
  std::string digest(size_t length) const;

 private:
  void push_chunk_chaining_value(std::array<uint32_t, 8> chaining_value, uint64_t total_chunks);
  void start_chunk();
  void compress_block_into_chunk();

  std::array<uint32_t, 8> key_words_{};
  uint32_t flags_ = 0;
  // The chunk being filled.
  std::array<uint32_t, 8> chunk_chaining_value_{};
  uint64_t chunk_counter_ = 0;
  std::array<uint8_t, 64> block_{};
  size_t block_length_ = 0;
  size_t blocks_compressed_ = 0;
  // Chaining values of completed subtrees, at most one per level (54 levels cover 2^64 bytes).
  std::array<std::array<uint32_t, 8>, 54> stack_{};
  size_t stack_size_ = 0;
};

Blake3Digest blake3_hash(std::string_view data);
Blake3Digest blake3_keyed_hash(const Blake3Key& key, std::string_view data);

}  // namespace kb::hub::xet
