// BLAKE3 from its specification (BLAKE3-specs, sections 2.1-2.6): the compression function, chunk
// chaining values, the binary tree of parent nodes merged as chunks complete, and the root output.
#include "hub/xet/blake3.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace kb::hub::xet {
namespace {

constexpr size_t kBlockLength = 64;
constexpr size_t kChunkLength = 1024;

constexpr uint32_t kChunkStart = 1u << 0;
constexpr uint32_t kChunkEnd = 1u << 1;
constexpr uint32_t kParent = 1u << 2;
constexpr uint32_t kRoot = 1u << 3;
constexpr uint32_t kKeyedHash = 1u << 4;

constexpr std::array<uint32_t, 8> kIv = {0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
                                         0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19};
constexpr std::array<size_t, 16> kMessagePermutation = {2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8};

using Words8 = std::array<uint32_t, 8>;
using Words16 = std::array<uint32_t, 16>;

inline uint32_t rotate_right(uint32_t x, int n) { return std::rotr(x, n); }

inline uint32_t load_le32(const uint8_t* p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}

// Message word order of each of the 7 rounds: round r + 1 applies kMessagePermutation to round r.
constexpr std::array<std::array<uint8_t, 16>, 7> kSchedule = [] {
  std::array<std::array<uint8_t, 16>, 7> schedule{};
  for (uint8_t i = 0; i < 16; ++i) schedule[0][i] = i;
  for (size_t round = 1; round < 7; ++round) {
    for (size_t i = 0; i < 16; ++i) schedule[round][i] = schedule[round - 1][kMessagePermutation[i]];
  }
  return schedule;
}();

// The quarter-round G on state words a, b, c, d with message words x, y.
inline void quarter_round(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d, uint32_t x, uint32_t y) {
  a = a + b + x;
  d = rotate_right(d ^ a, 16);
  c = c + d;
  b = rotate_right(b ^ c, 12);
  a = a + b + y;
  d = rotate_right(d ^ a, 8);
  c = c + d;
  b = rotate_right(b ^ c, 7);
}

// The full 16-word output of the compression function (the first 8 words are the new chaining
// value). State words live in locals so the compiler keeps them in registers.
Words16 compress(const Words8& chaining_value, const Words16& m, uint64_t counter, uint32_t block_length,
                 uint32_t flags) {
  uint32_t s0 = chaining_value[0], s1 = chaining_value[1], s2 = chaining_value[2], s3 = chaining_value[3];
  uint32_t s4 = chaining_value[4], s5 = chaining_value[5], s6 = chaining_value[6], s7 = chaining_value[7];
  uint32_t s8 = kIv[0], s9 = kIv[1], s10 = kIv[2], s11 = kIv[3];
  uint32_t s12 = uint32_t(counter), s13 = uint32_t(counter >> 32), s14 = block_length, s15 = flags;
  for (const auto& order : kSchedule) {
    quarter_round(s0, s4, s8, s12, m[order[0]], m[order[1]]);
    quarter_round(s1, s5, s9, s13, m[order[2]], m[order[3]]);
    quarter_round(s2, s6, s10, s14, m[order[4]], m[order[5]]);
    quarter_round(s3, s7, s11, s15, m[order[6]], m[order[7]]);
    quarter_round(s0, s5, s10, s15, m[order[8]], m[order[9]]);
    quarter_round(s1, s6, s11, s12, m[order[10]], m[order[11]]);
    quarter_round(s2, s7, s8, s13, m[order[12]], m[order[13]]);
    quarter_round(s3, s4, s9, s14, m[order[14]], m[order[15]]);
  }
  return {s0 ^ s8,  s1 ^ s9,  s2 ^ s10, s3 ^ s11, s4 ^ s12, s5 ^ s13, s6 ^ s14, s7 ^ s15,
          s8 ^ chaining_value[0], s9 ^ chaining_value[1], s10 ^ chaining_value[2], s11 ^ chaining_value[3],
          s12 ^ chaining_value[4], s13 ^ chaining_value[5], s14 ^ chaining_value[6], s15 ^ chaining_value[7]};
}

Words8 first_eight(const Words16& words) {
  Words8 out;
  std::copy_n(words.begin(), 8, out.begin());
  return out;
}

Words16 block_to_words(const uint8_t* block) {
  Words16 words;
  for (size_t i = 0; i < 16; ++i) words[i] = load_le32(block + 4 * i);
  return words;
}

// A node whose output is not yet decided: a chunk's last block, or a parent node. Compressed as a
// chaining value when a parent is built on it, with the ROOT flag when it is the root.
struct Output {
  Words8 input_chaining_value;
  Words16 block_words;
  uint64_t counter;
  uint32_t block_length;
  uint32_t flags;

  Words8 chaining_value() const {
    return first_eight(compress(input_chaining_value, block_words, counter, block_length, flags));
  }
  void root_bytes(uint8_t* out, size_t length) const {
    uint64_t output_block = 0;
    while (length > 0) {
      Words16 words = compress(input_chaining_value, block_words, output_block++, block_length, flags | kRoot);
      for (size_t i = 0; i < 16 && length > 0; ++i) {
        for (int byte = 0; byte < 4 && length > 0; ++byte, --length) *out++ = uint8_t(words[i] >> (8 * byte));
      }
    }
  }
};

Output parent_output(const Words8& left, const Words8& right, const Words8& key_words, uint32_t flags) {
  Words16 block;
  std::copy(left.begin(), left.end(), block.begin());
  std::copy(right.begin(), right.end(), block.begin() + 8);
  return Output{key_words, block, 0, uint32_t(kBlockLength), flags | kParent};
}

}  // namespace

Blake3::Blake3() : key_words_(kIv), flags_(0) { start_chunk(); }

Blake3::Blake3(const Blake3Key& key) : flags_(kKeyedHash) {
  for (size_t i = 0; i < 8; ++i) key_words_[i] = load_le32(key.data() + 4 * i);
  start_chunk();
}

void Blake3::start_chunk() {
  chunk_chaining_value_ = key_words_;
  block_.fill(0);
  block_length_ = 0;
  blocks_compressed_ = 0;
}

void Blake3::compress_block_into_chunk() {
  uint32_t flags = flags_ | (blocks_compressed_ == 0 ? kChunkStart : 0);
  chunk_chaining_value_ = first_eight(compress(chunk_chaining_value_, block_to_words(block_.data()),
                                               chunk_counter_, uint32_t(kBlockLength), flags));
  ++blocks_compressed_;
  block_.fill(0);
  block_length_ = 0;
}

// Merges completed subtrees: after `total_chunks` chunks, one parent per trailing zero bit.
void Blake3::push_chunk_chaining_value(std::array<uint32_t, 8> chaining_value, uint64_t total_chunks) {
  while ((total_chunks & 1) == 0) {
    chaining_value = parent_output(stack_[--stack_size_], chaining_value, key_words_, flags_).chaining_value();
    total_chunks >>= 1;
  }
  stack_[stack_size_++] = chaining_value;
}

void Blake3::update(std::string_view data) {
  auto* input = reinterpret_cast<const uint8_t*>(data.data());
  size_t remaining = data.size();
  while (remaining > 0) {
    // A full chunk is finished only once more input arrives (the last chunk may be the root).
    if (blocks_compressed_ * kBlockLength + block_length_ == kChunkLength) {
      Output chunk_end{chunk_chaining_value_, block_to_words(block_.data()), chunk_counter_,
                       uint32_t(block_length_), flags_ | kChunkEnd};
      push_chunk_chaining_value(chunk_end.chaining_value(), chunk_counter_ + 1);
      ++chunk_counter_;
      start_chunk();
    }
    // Likewise a full block is compressed only when more input follows it.
    if (block_length_ == kBlockLength) compress_block_into_chunk();
    size_t take = std::min(kBlockLength - block_length_, remaining);
    std::memcpy(block_.data() + block_length_, input, take);
    block_length_ += take;
    input += take;
    remaining -= take;
  }
}

std::string Blake3::digest(size_t length) const {
  uint32_t chunk_flags = flags_ | kChunkEnd | (blocks_compressed_ == 0 ? kChunkStart : 0);
  Output output{chunk_chaining_value_, block_to_words(block_.data()), chunk_counter_, uint32_t(block_length_),
                chunk_flags};
  for (size_t level = stack_size_; level > 0; --level) {
    output = parent_output(stack_[level - 1], output.chaining_value(), key_words_, flags_);
  }
  std::string out(length, '\0');
  output.root_bytes(reinterpret_cast<uint8_t*>(out.data()), length);
  return out;
}

Blake3Digest Blake3::digest() const {
  std::string bytes = digest(32);
  Blake3Digest out;
  std::memcpy(out.data(), bytes.data(), 32);
  return out;
}

Blake3Digest blake3_hash(std::string_view data) {
  Blake3 hasher;
  hasher.update(data);
  return hasher.digest();
}

Blake3Digest blake3_keyed_hash(const Blake3Key& key, std::string_view data) {
  Blake3 hasher(key);
  hasher.update(data);
  return hasher.digest();
}

}  // namespace kb::hub::xet
