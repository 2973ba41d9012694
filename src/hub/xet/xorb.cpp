// Xorb parsing, verification, range extraction and serialization (hub-docs xet/xorb.md), plus the
// optional index footer of xet-core's format version 1.
#include "hub/xet/xorb.h"

#include <cassert>
#include <cstring>

#include "hub/xet/chunking.h"
#include "hub/xet/compression.h"
#include "hub/xet/errors.h"

namespace kb::hub::xet {
namespace {

constexpr std::string_view kFooterIdent = "XETBLOB";
constexpr std::string_view kHashSectionIdent = "XBLBHSH";
constexpr std::string_view kBoundarySectionIdent = "XBLBBND";
constexpr uint8_t kFooterVersion = 1;
constexpr uint8_t kHashSectionVersion = 0;
constexpr uint8_t kBoundarySectionVersion = 1;
constexpr size_t kFooterBufferLength = 16;
constexpr uint8_t kChunkVersion = 0;

util::Error malformed(std::string message) {
  util::Error error(util::ErrorKind::invalid, "Malformed xorb");
  error.code = error_code::kMalformedXorb;
  return std::move(error).with_cause(std::move(message));
}

uint32_t read_u24(const char* p) {
  auto b = reinterpret_cast<const uint8_t*>(p);
  return uint32_t(b[0]) | (uint32_t(b[1]) << 8) | (uint32_t(b[2]) << 16);
}
uint32_t read_u32(const char* p) {
  auto b = reinterpret_cast<const uint8_t*>(p);
  return uint32_t(b[0]) | (uint32_t(b[1]) << 8) | (uint32_t(b[2]) << 16) | (uint32_t(b[3]) << 24);
}
void put_u24(std::string& out, uint32_t v) {
  for (int i = 0; i < 3; ++i) out.push_back(char((v >> (8 * i)) & 0xFF));
}
void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(char((v >> (8 * i)) & 0xFF));
}
void put_hash(std::string& out, const MerkleHash& hash) {
  out.append(reinterpret_cast<const char*>(hash.data()), hash.size());
}
MerkleHash read_hash(const char* p) {
  MerkleHash hash;
  std::memcpy(hash.data(), p, hash.size());
  return hash;
}

struct ChunkHeader {
  uint32_t compressed_size;
  CompressionScheme compression;
  uint32_t size;
};

// The header at `offset`, checked to be complete, well-formed and followed by its whole body.
util::Result<ChunkHeader> read_chunk_header(std::string_view bytes, uint64_t offset, size_t index) {
  std::string where = "chunk " + std::to_string(index) + " at byte " + std::to_string(offset);
  if (bytes.size() - offset < kXorbChunkHeaderSize) return malformed(where + ": truncated header");
  const char* p = bytes.data() + offset;
  if (uint8_t(p[0]) != kChunkVersion) {
    return malformed(where + ": chunk format version " + std::to_string(uint8_t(p[0])) + " (expected 0)");
  }
  ChunkHeader header{read_u24(p + 1), CompressionScheme(uint8_t(p[4])), read_u24(p + 5)};
  if (uint8_t(p[4]) > uint8_t(CompressionScheme::byte_grouping4_lz4)) {
    return malformed(where + ": unknown compression scheme " + std::to_string(uint8_t(p[4])));
  }
  if (header.size == 0 || header.size > kMaxChunkSize) {
    return malformed(where + ": uncompressed size " + std::to_string(header.size) + " outside 1.." +
                     std::to_string(kMaxChunkSize));
  }
  if (bytes.size() - offset - kXorbChunkHeaderSize < header.compressed_size) {
    return malformed(where + ": body of " + std::to_string(header.compressed_size) + " bytes is truncated");
  }
  return header;
}

util::Result<std::string> decode_body(std::string_view body, const ChunkHeader& header, size_t index) {
  std::string where = "chunk " + std::to_string(index);
  switch (header.compression) {
    case CompressionScheme::none:
      if (body.size() != header.size) {
        return malformed(where + ": uncompressed chunk of " + std::to_string(body.size()) + " bytes declares " +
                         std::to_string(header.size));
      }
      return std::string(body);
    case CompressionScheme::lz4:
    case CompressionScheme::byte_grouping4_lz4: {
      auto raw = lz4_decompress(body, header.size);
      if (!raw) {
        return malformed(where + ": LZ4 data does not decode to the declared " + std::to_string(header.size) +
                         " bytes");
      }
      if (header.compression == CompressionScheme::lz4) return std::move(*raw);
      return byte_ungroup4(*raw);
    }
  }
  return malformed(where + ": unknown compression scheme");
}

struct Footer {
  MerkleHash hash{};
  std::vector<MerkleHash> chunk_hashes;
  std::vector<uint32_t> boundaries;        // end of each chunk, headers included
  std::vector<uint32_t> unpacked_offsets;  // end of each chunk's uncompressed bytes
  uint64_t start = 0;                      // where the footer begins in the xorb
};

// Reads a version-1 footer that ends the xorb (its length is the xorb's last 4 bytes).
util::Result<Footer> read_footer(std::string_view bytes) {
  if (bytes.size() < 4) return malformed("no footer: fewer than 4 bytes");
  uint64_t info_length = read_u32(bytes.data() + bytes.size() - 4);
  if (info_length > bytes.size() - 4) return malformed("footer length " + std::to_string(info_length) + " exceeds the xorb");
  Footer footer;
  footer.start = bytes.size() - 4 - info_length;
  std::string_view f = bytes.substr(footer.start, info_length);
  size_t pos = 0;
  auto need = [&](size_t n) { return f.size() - pos >= n; };
  if (!need(8) || f.substr(0, 7) != kFooterIdent) return malformed("footer does not start with `XETBLOB`");
  if (uint8_t(f[7]) != kFooterVersion) {
    return malformed("footer version " + std::to_string(uint8_t(f[7])) + " (supported: 1)");
  }
  pos = 8;
  if (!need(32)) return malformed("footer truncated");
  footer.hash = read_hash(f.data() + pos);
  pos += 32;
  if (!need(12) || f.substr(pos, 7) != kHashSectionIdent || uint8_t(f[pos + 7]) != kHashSectionVersion) {
    return malformed("footer hash section header is invalid");
  }
  uint64_t count = read_u32(f.data() + pos + 8);
  pos += 12;
  uint64_t hashes_section = pos - 12;
  if (count == 0 || !need(count * 32)) return malformed("footer hash section truncated or empty");
  for (uint64_t i = 0; i < count; ++i, pos += 32) footer.chunk_hashes.push_back(read_hash(f.data() + pos));
  uint64_t boundary_section = pos;
  if (!need(12) || f.substr(pos, 7) != kBoundarySectionIdent || uint8_t(f[pos + 7]) != kBoundarySectionVersion ||
      read_u32(f.data() + pos + 8) != count) {
    return malformed("footer boundary section header is invalid");
  }
  pos += 12;
  if (!need(count * 8 + 12 + kFooterBufferLength)) return malformed("footer boundary section truncated");
  for (uint64_t i = 0; i < count; ++i, pos += 4) footer.boundaries.push_back(read_u32(f.data() + pos));
  for (uint64_t i = 0; i < count; ++i, pos += 4) footer.unpacked_offsets.push_back(read_u32(f.data() + pos));
  uint64_t tail_count = read_u32(f.data() + pos);
  uint64_t hashes_from_end = read_u32(f.data() + pos + 4);
  uint64_t boundaries_from_end = read_u32(f.data() + pos + 8);
  pos += 12 + kFooterBufferLength;
  if (pos != f.size()) return malformed("footer has " + std::to_string(f.size() - pos) + " unexpected bytes");
  if (tail_count != count || hashes_from_end != f.size() - hashes_section ||
      boundaries_from_end != f.size() - boundary_section) {
    return malformed("footer counts or section offsets are inconsistent");
  }
  return footer;
}

util::Status check_footer_matches(const Footer& footer, const XorbInfo& xorb) {
  if (footer.start != xorb.chunks_size) return malformed("footer does not start right after the last chunk");
  if (footer.chunk_hashes.size() != xorb.chunks.size()) return malformed("footer lists a different number of chunks");
  uint64_t unpacked = 0;
  for (size_t i = 0; i < xorb.chunks.size(); ++i) {
    unpacked += xorb.chunks[i].size;
    if (footer.chunk_hashes[i] != xorb.chunks[i].hash || footer.boundaries[i] != xorb.chunks[i].end() ||
        footer.unpacked_offsets[i] != unpacked) {
      return malformed("footer entry of chunk " + std::to_string(i) + " disagrees with the chunk");
    }
  }
  if (footer.hash != xorb.hash) return malformed("footer names a different xorb hash");
  return {};
}

}  // namespace

std::vector<ChunkHashAndSize> XorbInfo::chunk_hashes() const {
  std::vector<ChunkHashAndSize> out;
  out.reserve(chunks.size());
  for (const auto& chunk : chunks) out.push_back({chunk.hash, chunk.size});
  return out;
}

util::Result<XorbInfo> parse_xorb(std::string_view serialized) {
  if (serialized.size() > kMaxXorbSize) {
    return too_large("Xorb", error_code::kXorbTooLarge, serialized.size(), kMaxXorbSize);
  }
  XorbInfo xorb;
  uint64_t offset = 0;
  // A footer starts with 'X'; a chunk header with version 0, so the two cannot be confused.
  while (offset < serialized.size() && serialized[offset] != kFooterIdent[0]) {
    size_t index = xorb.chunks.size();
    auto header = read_chunk_header(serialized, offset, index);
    if (!header) return std::move(header).error();
    auto raw = decode_body(serialized.substr(offset + kXorbChunkHeaderSize, header->compressed_size), *header, index);
    if (!raw) return std::move(raw).error();
    xorb.chunks.push_back({chunk_hash(*raw), offset, header->compressed_size, header->size, header->compression});
    xorb.unpacked_size += header->size;
    offset = xorb.chunks.back().end();
  }
  if (xorb.chunks.empty()) return malformed("no chunks");
  // Shards and footers record unpacked sizes and offsets as u32.
  if (xorb.unpacked_size > UINT32_MAX) return malformed("more than 4 GiB of uncompressed chunk data");
  xorb.chunks_size = offset;
  auto hashes = xorb.chunk_hashes();
  xorb.hash = xorb_hash(hashes);
  if (offset < serialized.size()) {
    auto footer = read_footer(serialized);
    if (!footer) return std::move(footer).error();
    KB_TRY(check_footer_matches(*footer, xorb));
  }
  return xorb;
}

util::Result<XorbInfo> verify_xorb(std::string_view serialized, const MerkleHash& expected) {
  auto xorb = parse_xorb(serialized);
  if (!xorb) return xorb;
  if (xorb->hash != expected) {
    util::Error error(util::ErrorKind::integrity, "Xorb content does not match its name `" + hash_to_string(expected) + "`");
    error.code = error_code::kXorbHashMismatch;
    return std::move(error).with_cause("its chunks hash to `" + hash_to_string(xorb->hash) + "`");
  }
  return xorb;
}

util::Result<XorbByteRange> chunk_byte_range(const XorbInfo& xorb, uint32_t chunk_begin, uint32_t chunk_end) {
  if (chunk_begin >= chunk_end || chunk_end > xorb.chunks.size()) {
    util::Error error(util::ErrorKind::invalid, "Chunk range [" + std::to_string(chunk_begin) + ", " +
                                                    std::to_string(chunk_end) + ") is not inside xorb `" +
                                                    hash_to_string(xorb.hash) + "`");
    error.code = error_code::kChunkRangeOutOfBounds;
    return std::move(error).with_cause("the xorb has " + std::to_string(xorb.chunks.size()) + " chunks");
  }
  return XorbByteRange{xorb.chunks[chunk_begin].offset, xorb.chunks[chunk_end - 1].end()};
}

util::Result<std::string> decode_chunks(std::string_view serialized_chunks) {
  std::string out;
  uint64_t offset = 0;
  size_t index = 0;
  while (offset < serialized_chunks.size()) {
    auto header = read_chunk_header(serialized_chunks, offset, index);
    if (!header) return std::move(header).error();
    auto raw = decode_body(serialized_chunks.substr(offset + kXorbChunkHeaderSize, header->compressed_size), *header,
                           index);
    if (!raw) return std::move(raw).error();
    out += *raw;
    offset += kXorbChunkHeaderSize + header->compressed_size;
    ++index;
  }
  return out;
}

std::string write_xorb_footer(const XorbInfo& xorb) {
  auto count = uint32_t(xorb.chunks.size());
  std::string footer;
  footer.append(kFooterIdent);
  footer.push_back(char(kFooterVersion));
  put_hash(footer, xorb.hash);
  size_t hashes_section = footer.size();
  footer.append(kHashSectionIdent);
  footer.push_back(char(kHashSectionVersion));
  put_u32(footer, count);
  for (const auto& chunk : xorb.chunks) put_hash(footer, chunk.hash);
  size_t boundary_section = footer.size();
  footer.append(kBoundarySectionIdent);
  footer.push_back(char(kBoundarySectionVersion));
  put_u32(footer, count);
  for (const auto& chunk : xorb.chunks) put_u32(footer, uint32_t(chunk.end()));
  uint32_t unpacked = 0;
  for (const auto& chunk : xorb.chunks) put_u32(footer, unpacked += chunk.size);
  size_t end = footer.size() + 12 + kFooterBufferLength;
  put_u32(footer, count);
  put_u32(footer, uint32_t(end - hashes_section));
  put_u32(footer, uint32_t(end - boundary_section));
  footer.append(kFooterBufferLength, '\0');
  put_u32(footer, uint32_t(footer.size()));
  return footer;
}

util::Result<XorbInfo> read_xorb_footer(std::string_view serialized) {
  auto footer = read_footer(serialized);
  if (!footer) return std::move(footer).error();
  XorbInfo xorb;
  xorb.hash = footer->hash;
  uint64_t offset = 0;
  uint64_t unpacked = 0;
  for (size_t i = 0; i < footer->chunk_hashes.size(); ++i) {
    auto header = read_chunk_header(serialized.substr(0, footer->start), offset, i);
    if (!header) return std::move(header).error();
    xorb.chunks.push_back({footer->chunk_hashes[i], offset, header->compressed_size, header->size, header->compression});
    offset = xorb.chunks.back().end();
    unpacked += header->size;
    if (footer->boundaries[i] != offset || footer->unpacked_offsets[i] != unpacked) {
      return malformed("footer entry of chunk " + std::to_string(i) + " disagrees with the chunk header");
    }
  }
  if (offset != footer->start) return malformed("footer does not start right after the last chunk");
  xorb.chunks_size = offset;
  xorb.unpacked_size = unpacked;
  return xorb;
}

bool XorbBuilder::add_chunk(std::string_view chunk) {
  assert(!chunk.empty() && chunk.size() <= kMaxChunkSize);
  std::string body = lz4_compress(chunk);
  auto scheme = CompressionScheme::lz4;
  if (try_byte_grouping_) {
    std::string grouped = lz4_compress(byte_group4(chunk));
    if (grouped.size() < body.size()) {
      body = std::move(grouped);
      scheme = CompressionScheme::byte_grouping4_lz4;
    }
  }
  if (body.size() >= chunk.size()) {
    body = std::string(chunk);
    scheme = CompressionScheme::none;
  }
  if (info_.chunks.size() >= kMaxBuiltXorbChunks ||
      bytes_.size() + kXorbChunkHeaderSize + body.size() > kMaxXorbChunkData) {
    return false;
  }
  XorbChunk entry{chunk_hash(chunk), bytes_.size(), uint32_t(body.size()), uint32_t(chunk.size()), scheme};
  bytes_.push_back(char(kChunkVersion));
  put_u24(bytes_, entry.compressed_size);
  bytes_.push_back(char(scheme));
  put_u24(bytes_, entry.size);
  bytes_ += body;
  info_.chunks.push_back(entry);
  info_.unpacked_size += entry.size;
  info_.chunks_size = bytes_.size();
  return true;
}

SerializedXorb XorbBuilder::finish() {
  auto hashes = info_.chunk_hashes();
  info_.hash = xorb_hash(hashes);
  SerializedXorb out{std::move(info_), std::move(bytes_)};
  info_ = XorbInfo{};
  bytes_.clear();
  return out;
}

}  // namespace kb::hub::xet
