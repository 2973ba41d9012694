// Gear-hash content-defined chunking (hub-docs xet/chunking.md), streaming. The hash after a byte
// depends only on the last 64 bytes (each step shifts older contributions out), so the first
// kMinChunkSize - 65 bytes of a chunk are skipped unhashed: the spec's cut-point skipping, which
// yields the same boundaries as hashing every byte.
#include "hub/xet/chunking.h"

#include "hub/xet/gear_table.h"

namespace kb::hub::xet {
namespace {

constexpr uint64_t kBoundaryMask = 0xFFFF000000000000ull;
constexpr size_t kHashWindow = 64;
// Chunk sizes up to this many bytes are never tested nor needed to compute a tested hash.
constexpr size_t kUnhashedPrefix = kMinChunkSize - kHashWindow - 1;

}  // namespace

void Chunker::update(std::string_view data, const OnChunk& on_chunk) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  size_t consumed = 0;  // bytes of `data` already emitted
  size_t i = 0;
  while (i < data.size()) {
    size_t size_before = pending_.size() + (i - consumed);
    if (size_before < kUnhashedPrefix) {
      i += std::min(data.size() - i, kUnhashedPrefix - size_before);
      continue;
    }
    gear_ = (gear_ << 1) + kGearTable[bytes[i]];
    ++i;
    size_t size = size_before + 1;
    if (size >= kMinChunkSize && (size >= kMaxChunkSize || (gear_ & kBoundaryMask) == 0)) {
      if (pending_.empty()) {
        on_chunk(data.substr(consumed, i - consumed));
      } else {
        pending_.append(data.substr(consumed, i - consumed));
        on_chunk(pending_);
        pending_.clear();
      }
      consumed = i;
      gear_ = 0;
    }
  }
  pending_.append(data.substr(consumed));
}

void Chunker::finish(const OnChunk& on_chunk) {
  if (!pending_.empty()) on_chunk(pending_);
  pending_.clear();
  gear_ = 0;
}

std::vector<size_t> chunk_lengths(std::string_view data) {
  std::vector<size_t> lengths;
  Chunker chunker;
  auto record = [&](std::string_view chunk) { lengths.push_back(chunk.size()); };
  chunker.update(data, record);
  chunker.finish(record);
  return lengths;
}

std::vector<ChunkHashAndSize> chunk_and_hash(std::string_view data) {
  std::vector<ChunkHashAndSize> chunks;
  Chunker chunker;
  auto record = [&](std::string_view chunk) { chunks.push_back({chunk_hash(chunk), chunk.size()}); };
  chunker.update(data, record);
  chunker.finish(record);
  return chunks;
}

}  // namespace kb::hub::xet
