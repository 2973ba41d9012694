// Content-defined chunking of the Xet protocol (hub-docs xet/chunking.md): a gear rolling hash
// h = (h << 1) + TABLE[byte] (64-bit wrapping, rust-gearhash's table), a boundary after a byte
// where h & 0xFFFF000000000000 == 0 once the chunk has at least 8 KiB, a forced boundary at
// 128 KiB, h reset to 0 at every boundary; the rest of the data is the last chunk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "hub/xet/hashing.h"

namespace kb::hub::xet {

inline constexpr size_t kMinChunkSize = 8 * 1024;
inline constexpr size_t kTargetChunkSize = 64 * 1024;
inline constexpr size_t kMaxChunkSize = 128 * 1024;

// Streaming chunker: feed the file in pieces of any size; every completed chunk is handed to
// `on_chunk` with its bytes (valid only during the call). Boundaries equal chunk_lengths()'s.
class Chunker {
 public:
  using OnChunk = std::function<void(std::string_view chunk)>;
  void update(std::string_view data, const OnChunk& on_chunk);
  // Emits the remaining bytes (if any) as the last chunk and resets the chunker.
  void finish(const OnChunk& on_chunk);

 private:
  std::string pending_;   // bytes of the chunk being cut (< kMaxChunkSize)
  uint64_t gear_ = 0;
};

// Lengths of the chunks of `data`, in order (an empty input has no chunk).
std::vector<size_t> chunk_lengths(std::string_view data);

// The chunks of `data` with their hashes and sizes (what xorb_hash/file_hash take).
std::vector<ChunkHashAndSize> chunk_and_hash(std::string_view data);

}  // namespace kb::hub::xet
