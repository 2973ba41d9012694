// The xorb format (hub-docs xet/xorb.md): a sequence of chunks, each an 8-byte header (version 0,
// compressed size u24 LE, compression scheme, uncompressed size u24 LE) followed by its compressed
// bytes (none, LZ4 block, or byte-grouping-4 then LZ4). The xorb is named by xorb_hash() of its
// chunks. Clients upload it bare; xet-core may append an index footer ("XETBLOB", version 0 or 1:
// chunk hashes, chunk boundaries, unpacked offsets, then the footer length as u32), which is
// accepted when consistent. write_xorb_footer() lets a store keep that index with the object so a
// reconstruction needs no decompression (read_xorb_footer()).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hub/xet/hashing.h"
#include "util/result.h"

namespace kb::hub::xet {

// Chunk data of one xorb: xet-core's client packs up to 64 MiB of it, and XorbBuilder keeps its
// serialized xorbs within this size.
inline constexpr uint64_t kMaxXorbChunkData = 64ull * 1024 * 1024;
inline constexpr size_t kXorbChunkHeaderSize = 8;
// XorbBuilder stops at this many chunks, as xet-core's client does (keeps unpacked sizes in u32).
inline constexpr size_t kMaxBuiltXorbChunks = 8 * 1024;
// Serialized bytes accepted from a client (the upload limit): 64 MiB of chunk data as hf_xet 1.8.0
// sends it (67116856 bytes seen for 64 MiB of random data), a header per chunk and room for the
// footer.
inline constexpr uint64_t kMaxXorbSize =
    kMaxXorbChunkData + kXorbChunkHeaderSize * kMaxBuiltXorbChunks + (uint64_t{1} << 20);

enum class CompressionScheme : uint8_t { none = 0, lz4 = 1, byte_grouping4_lz4 = 2 };

struct XorbChunk {
  MerkleHash hash{};
  uint64_t offset = 0;           // where the chunk's header starts in the serialized xorb
  uint32_t compressed_size = 0;  // bytes after the header
  uint32_t size = 0;             // uncompressed bytes
  CompressionScheme compression = CompressionScheme::none;
  uint64_t end() const { return offset + kXorbChunkHeaderSize + compressed_size; }
};

// What parsing a xorb (or its footer) yields: the layout a store needs to serve chunk ranges.
struct XorbInfo {
  MerkleHash hash{};
  std::vector<XorbChunk> chunks;
  uint64_t chunks_size = 0;    // bytes of all chunks (headers included); a footer starts here
  uint64_t unpacked_size = 0;  // sum of the chunks' uncompressed sizes
  std::vector<ChunkHashAndSize> chunk_hashes() const;
};

// Parses every chunk, decompresses and hashes it, and computes the xorb hash. Refuses (code
// kXorbTooLarge) more than kMaxXorbSize bytes and (kMalformedXorb) an empty xorb, a truncated
// header or body, a version other than 0, an unknown scheme, an uncompressed size over
// kMaxChunkSize, data that does not decompress to exactly the declared size, and a footer that
// disagrees with the chunks.
util::Result<XorbInfo> parse_xorb(std::string_view serialized);
// parse_xorb, then the hash must equal `expected` (the name it is uploaded under), otherwise an
// ErrorKind::integrity error with code kXorbHashMismatch.
util::Result<XorbInfo> verify_xorb(std::string_view serialized, const MerkleHash& expected);

// Bytes [start, end) of the serialized xorb holding chunks [chunk_begin, chunk_end); code
// kChunkRangeOutOfBounds unless chunk_begin < chunk_end <= chunks.size().
struct XorbByteRange {
  uint64_t start = 0;
  uint64_t end = 0;
};
util::Result<XorbByteRange> chunk_byte_range(const XorbInfo& xorb, uint32_t chunk_begin, uint32_t chunk_end);

// Decodes consecutive serialized chunks (for example the bytes of a chunk_byte_range) and returns
// their uncompressed bytes concatenated (kMalformedXorb if they do not frame exactly).
util::Result<std::string> decode_chunks(std::string_view serialized_chunks);

// Index footer (xet-core's version 1 layout) for `xorb`, to append after its chunks.
std::string write_xorb_footer(const XorbInfo& xorb);
// Reads the layout back from a xorb that ends with a footer (kMalformedXorb if it has none or it
// is inconsistent); chunk hashes come from the footer and are not recomputed.
util::Result<XorbInfo> read_xorb_footer(std::string_view serialized);

// Serializing: add chunks in order, then finish(). Each chunk is stored with the smaller of LZ4
// and byte-grouping-4 LZ4 (`try_byte_grouping`), or uncompressed when neither saves bytes.
struct SerializedXorb {
  XorbInfo info;
  std::string bytes;  // no footer, as clients upload it
};
class XorbBuilder {
 public:
  explicit XorbBuilder(bool try_byte_grouping = false) : try_byte_grouping_(try_byte_grouping) {}
  // Appends a chunk (1..kMaxChunkSize bytes); false, and nothing appended, when the xorb would
  // then exceed kMaxXorbChunkData bytes or kMaxBuiltXorbChunks (finish this one and start another).
  bool add_chunk(std::string_view chunk);
  bool empty() const { return info_.chunks.empty(); }
  const MerkleHash& last_chunk_hash() const { return info_.chunks.back().hash; }
  uint64_t size() const { return bytes_.size(); }
  SerializedXorb finish();  // computes the hash; the builder is empty afterwards

 private:
  bool try_byte_grouping_;
  XorbInfo info_;
  std::string bytes_;
};

}  // namespace kb::hub::xet
