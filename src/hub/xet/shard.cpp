// Shard parsing, serialization and upload verification (hub-docs xet/shard.md, xet/hashing.md).
#include "hub/xet/shard.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

#include "hub/xet/errors.h"
#include "hub/xet/xorb.h"

namespace kb::hub::xet {
namespace {

constexpr std::array<uint8_t, 32> kShardMagic = {'H', 'F', 'R', 'e', 'p', 'o', 'M', 'e', 't', 'a', 'D',
                                                 'a', 't', 'a', 0,   85,  105, 103, 69,  106, 123, 129,
                                                 87,  131, 165, 189, 217, 92,  205, 209, 74,  169};
constexpr uint64_t kHeaderVersion = 2;
constexpr uint64_t kFooterVersion = 1;
constexpr size_t kHeaderSize = 48;
constexpr size_t kEntrySize = 48;
constexpr size_t kFooterSize = 200;
constexpr uint32_t kFlagVerification = 1u << 31;
constexpr uint32_t kFlagMetadataExt = 1u << 30;

util::Error malformed(std::string message) {
  util::Error error(util::ErrorKind::invalid, "Malformed shard");
  error.code = error_code::kMalformedShard;
  return std::move(error).with_cause(std::move(message));
}

util::Error verification_failed(std::string message) {
  util::Error error(util::ErrorKind::integrity, "Shard verification failed");
  error.code = error_code::kShardVerificationFailed;
  return std::move(error).with_cause(std::move(message));
}

class Reader {
 public:
  Reader(std::string_view bytes, size_t end) : bytes_(bytes), end_(end) {}
  size_t position() const { return pos_; }
  bool has(size_t n) const { return end_ - pos_ >= n; }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | uint8_t(bytes_[pos_ + size_t(i)]);
    pos_ += 4;
    return v;
  }
  uint64_t u64() {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | uint8_t(bytes_[pos_ + size_t(i)]);
    pos_ += 8;
    return v;
  }
  MerkleHash hash() {
    MerkleHash h;
    std::memcpy(h.data(), bytes_.data() + pos_, 32);
    pos_ += 32;
    return h;
  }
  void skip(size_t n) { pos_ += n; }
  void seek(size_t position) { pos_ = position; }

 private:
  std::string_view bytes_;
  size_t end_;
  size_t pos_ = 0;
};

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(char((v >> (8 * i)) & 0xFF));
}
void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(char((v >> (8 * i)) & 0xFF));
}
void put_hash(std::string& out, const std::array<uint8_t, 32>& h) {
  out.append(reinterpret_cast<const char*>(h.data()), h.size());
}
void put_bookend(std::string& out) {
  out.append(32, char(0xFF));
  out.append(16, '\0');
}

// The metadata extension stores the SHA-256 as a MerkleHash: its string form (each 8-byte group
// reversed) is the usual hex digest. Swapping the groups converts either way.
std::array<uint8_t, 32> swap_eight_byte_groups(const std::array<uint8_t, 32>& in) {
  std::array<uint8_t, 32> out;
  for (size_t group = 0; group < 4; ++group) {
    for (size_t i = 0; i < 8; ++i) out[8 * group + i] = in[8 * group + 7 - i];
  }
  return out;
}

bool is_bookend(const MerkleHash& hash) {
  for (uint8_t byte : hash) {
    if (byte != 0xFF) return false;
  }
  return true;
}

std::string entry_name(const char* what, size_t index) { return std::string(what) + " " + std::to_string(index); }

util::Result<std::vector<FileInfo>> read_file_section(Reader& in) {
  std::vector<FileInfo> files;
  size_t with_verification = 0;
  size_t without_verification = 0;
  for (;;) {
    if (!in.has(kEntrySize)) return malformed("file info section ends without its bookend");
    FileInfo file;
    file.file_hash = in.hash();
    uint32_t flags = in.u32();
    uint32_t count = in.u32();
    in.skip(8);
    if (is_bookend(file.file_hash)) break;
    std::string name = entry_name("file", files.size());
    if ((flags & ~(kFlagVerification | kFlagMetadataExt)) != 0) {
      return malformed(name + ": unknown flags " + std::to_string(flags));
    }
    bool verification = (flags & kFlagVerification) != 0;
    bool metadata = (flags & kFlagMetadataExt) != 0;
    uint64_t needed = uint64_t(count) * kEntrySize * (verification ? 2 : 1) + (metadata ? kEntrySize : 0);
    if (!in.has(needed)) return malformed(name + ": " + std::to_string(count) + " terms run past the section");
    uint64_t size = 0;
    for (uint32_t i = 0; i < count; ++i) {
      FileTerm term;
      term.xorb_hash = in.hash();
      in.skip(4);  // cas_flags, reserved
      term.unpacked_size = in.u32();
      term.chunk_begin = in.u32();
      term.chunk_end = in.u32();
      if (term.chunk_begin >= term.chunk_end) {
        return malformed(name + ", term " + std::to_string(i) + ": empty chunk range [" +
                         std::to_string(term.chunk_begin) + ", " + std::to_string(term.chunk_end) + ")");
      }
      size += term.unpacked_size;
      file.terms.push_back(term);
    }
    if (verification) {
      for (auto& term : file.terms) {
        term.verification = in.hash();
        in.skip(16);
      }
    }
    if (metadata) {
      file.sha256 = swap_eight_byte_groups(in.hash());
      in.skip(16);
    }
    if (count > 0) (verification ? with_verification : without_verification) += 1;
    files.push_back(std::move(file));
  }
  if (with_verification > 0 && without_verification > 0) {
    return malformed("verification entries on " + std::to_string(with_verification) + " files but not on " +
                     std::to_string(without_verification) + " others");
  }
  return files;
}

util::Result<std::vector<XorbEntry>> read_cas_section(Reader& in) {
  std::vector<XorbEntry> xorbs;
  for (;;) {
    if (!in.has(kEntrySize)) return malformed("CAS info section ends without its bookend");
    XorbEntry xorb;
    xorb.xorb_hash = in.hash();
    in.skip(4);  // cas_flags, reserved
    uint32_t count = in.u32();
    xorb.unpacked_size = in.u32();
    xorb.serialized_size = in.u32();
    if (is_bookend(xorb.xorb_hash)) break;
    if (!in.has(uint64_t(count) * kEntrySize)) {
      return malformed(entry_name("xorb", xorbs.size()) + ": " + std::to_string(count) + " chunks run past the section");
    }
    for (uint32_t i = 0; i < count; ++i) {
      XorbChunkEntry chunk;
      chunk.chunk_hash = in.hash();
      chunk.byte_start = in.u32();
      chunk.unpacked_size = in.u32();
      in.skip(8);
      xorb.chunks.push_back(chunk);
    }
    xorbs.push_back(std::move(xorb));
  }
  return xorbs;
}

}  // namespace

uint64_t FileInfo::size() const {
  uint64_t total = 0;
  for (const auto& term : terms) total += term.unpacked_size;
  return total;
}

util::Result<Shard> parse_shard(std::string_view bytes) {
  if (bytes.size() > kMaxShardSize) {
    return too_large("Shard", error_code::kShardTooLarge, bytes.size(), kMaxShardSize);
  }
  if (bytes.size() < kHeaderSize) return malformed("shorter than its 48-byte header");
  if (std::memcmp(bytes.data(), kShardMagic.data(), kShardMagic.size()) != 0) {
    return malformed("wrong magic number: not a Xet shard");
  }
  Reader header(bytes, bytes.size());
  header.skip(32);
  uint64_t version = header.u64();
  uint64_t footer_size = header.u64();
  if (version != kHeaderVersion) return malformed("header version " + std::to_string(version) + " (expected 2)");
  if (footer_size != 0 && footer_size != kFooterSize) {
    return malformed("footer size " + std::to_string(footer_size) + " (expected 0 or 200)");
  }
  if (bytes.size() - kHeaderSize < footer_size) return malformed("footer size exceeds the shard");
  size_t body_end = bytes.size() - footer_size;

  Shard shard;
  Reader in(bytes, body_end);
  in.seek(kHeaderSize);
  auto files = read_file_section(in);
  if (!files) return std::move(files).error();
  shard.files = std::move(*files);
  size_t cas_offset = in.position();
  auto xorbs = read_cas_section(in);
  if (!xorbs) return std::move(xorbs).error();
  shard.xorbs = std::move(*xorbs);
  if (in.position() != body_end) {
    return malformed(std::to_string(body_end - in.position()) + " unexpected bytes after the CAS info section");
  }
  if (footer_size > 0) {
    Reader f(bytes, bytes.size());
    f.seek(body_end);
    uint64_t footer_version = f.u64();
    uint64_t file_info_offset = f.u64();
    uint64_t cas_info_offset = f.u64();
    f.skip(48);
    ShardFooter footer;
    footer.chunk_hash_key = f.hash();
    footer.creation_timestamp = f.u64();
    footer.key_expiry = f.u64();
    f.skip(72);
    uint64_t footer_offset = f.u64();
    if (footer_version != kFooterVersion) {
      return malformed("footer version " + std::to_string(footer_version) + " (expected 1)");
    }
    if (file_info_offset != kHeaderSize || cas_info_offset != cas_offset || footer_offset != body_end) {
      return malformed("footer section offsets disagree with the sections");
    }
    shard.footer = footer;
  }
  return shard;
}

std::string serialize_shard(const Shard& shard) {
  std::string out;
  put_hash(out, kShardMagic);
  put_u64(out, kHeaderVersion);
  put_u64(out, shard.footer ? kFooterSize : 0);
  for (const auto& file : shard.files) {
    bool verification = !file.terms.empty();
    for (const auto& term : file.terms) verification = verification && term.verification.has_value();
    put_hash(out, file.file_hash);
    put_u32(out, (verification ? kFlagVerification : 0) | (file.sha256 ? kFlagMetadataExt : 0));
    put_u32(out, uint32_t(file.terms.size()));
    out.append(8, '\0');
    for (const auto& term : file.terms) {
      put_hash(out, term.xorb_hash);
      put_u32(out, 0);
      put_u32(out, term.unpacked_size);
      put_u32(out, term.chunk_begin);
      put_u32(out, term.chunk_end);
    }
    if (verification) {
      for (const auto& term : file.terms) {
        put_hash(out, *term.verification);
        out.append(16, '\0');
      }
    }
    if (file.sha256) {
      put_hash(out, swap_eight_byte_groups(*file.sha256));
      out.append(16, '\0');
    }
  }
  put_bookend(out);
  size_t cas_offset = out.size();
  for (const auto& xorb : shard.xorbs) {
    put_hash(out, xorb.xorb_hash);
    put_u32(out, 0);
    put_u32(out, uint32_t(xorb.chunks.size()));
    put_u32(out, xorb.unpacked_size);
    put_u32(out, xorb.serialized_size);
    for (const auto& chunk : xorb.chunks) {
      put_hash(out, chunk.chunk_hash);
      put_u32(out, chunk.byte_start);
      put_u32(out, chunk.unpacked_size);
      out.append(8, '\0');
    }
  }
  put_bookend(out);
  if (shard.footer) {
    size_t footer_offset = out.size();
    put_u64(out, kFooterVersion);
    put_u64(out, kHeaderSize);
    put_u64(out, cas_offset);
    // What the spec calls reserved, xet-core reads as the offsets and sizes of lookup tables
    // (file, xorb, chunk) that follow the CAS section; a client given zero offsets computes
    // negative section lengths. No tables: each starts at the footer with 0 entries, as
    // xet-core's own streaming shards write.
    for (int table = 0; table < 3; ++table) {
      put_u64(out, footer_offset);
      put_u64(out, 0);
    }
    put_hash(out, shard.footer->chunk_hash_key);
    put_u64(out, shard.footer->creation_timestamp);
    put_u64(out, shard.footer->key_expiry);
    out.append(48, '\0');
    // Byte totals xet-core keeps (stored on disk, materialized by the files, stored unpacked).
    uint64_t on_disk = 0;
    uint64_t stored = 0;
    uint64_t materialized = 0;
    for (const auto& xorb : shard.xorbs) {
      on_disk += xorb.serialized_size;
      stored += xorb.unpacked_size;
    }
    for (const auto& file : shard.files) materialized += file.size();
    put_u64(out, on_disk);
    put_u64(out, materialized);
    put_u64(out, stored);
    put_u64(out, footer_offset);
  }
  return out;
}

namespace {

// Stored chunk lists, each looked up once per shard.
class StoredXorbs {
 public:
  explicit StoredXorbs(const XorbChunksLookup& lookup) : lookup_(lookup) {}
  util::Result<const std::vector<ChunkHashAndSize>*> chunks(const MerkleHash& xorb) {
    auto it = known_.find(xorb);
    if (it == known_.end()) {
      auto chunks = lookup_(xorb);
      if (!chunks) return std::move(chunks).error();
      it = known_.emplace(xorb, std::move(*chunks)).first;
    }
    return &it->second;
  }

  // The verification hash of a term's chunk range, computed once per shard however many terms
  // repeat it.
  const MerkleHash& range_hash(const FileTerm& term, const std::vector<MerkleHash>& hashes) {
    auto key = std::make_tuple(term.xorb_hash, term.chunk_begin, term.chunk_end);
    auto it = range_hashes_.find(key);
    if (it == range_hashes_.end()) it = range_hashes_.emplace(key, verification_range_hash(hashes)).first;
    return it->second;
  }

 private:
  const XorbChunksLookup& lookup_;
  std::map<MerkleHash, std::vector<ChunkHashAndSize>> known_;
  std::map<std::tuple<MerkleHash, uint32_t, uint32_t>, MerkleHash> range_hashes_;
};

// A term's range, size and verification hash against the stored xorb; its chunks are appended
// to `file_chunks`.
util::Status verify_term(const FileTerm& term, const std::string& name, StoredXorbs& stored,
                         std::vector<ChunkHashAndSize>& file_chunks) {
  auto chunks = stored.chunks(term.xorb_hash);
  if (!chunks) return std::move(chunks).error();
  const auto& xorb_chunks = **chunks;
  if (term.chunk_begin >= term.chunk_end || term.chunk_end > xorb_chunks.size()) {
    util::Error error(util::ErrorKind::invalid, "Shard references chunks outside a xorb");
    error.code = error_code::kChunkRangeOutOfBounds;
    return std::move(error).with_cause(name + ": chunks [" + std::to_string(term.chunk_begin) + ", " +
                                       std::to_string(term.chunk_end) + ") of xorb `" +
                                       hash_to_string(term.xorb_hash) + "`, which has " +
                                       std::to_string(xorb_chunks.size()));
  }
  if (!term.verification) return verification_failed(name + ": no verification entry");
  std::vector<MerkleHash> range_hashes;
  uint64_t unpacked = 0;
  for (uint32_t c = term.chunk_begin; c < term.chunk_end; ++c) {
    range_hashes.push_back(xorb_chunks[c].hash);
    unpacked += xorb_chunks[c].size;
    file_chunks.push_back(xorb_chunks[c]);
  }
  if (unpacked != term.unpacked_size) {
    return verification_failed(name + ": declares " + std::to_string(term.unpacked_size) + " bytes, its chunks hold " +
                               std::to_string(unpacked));
  }
  if (stored.range_hash(term, range_hashes) != *term.verification) {
    return verification_failed(name + ": the verification hash does not match the xorb's chunks");
  }
  return {};
}

util::Status verify_file(const FileInfo& file, StoredXorbs& stored) {
  std::string name = "file `" + hash_to_string(file.file_hash) + "`";
  std::vector<ChunkHashAndSize> file_chunks;
  for (size_t t = 0; t < file.terms.size(); ++t) {
    KB_TRY(verify_term(file.terms[t], name + ", term " + std::to_string(t), stored, file_chunks));
  }
  MerkleHash computed = file_hash(file_chunks);
  if (computed != file.file_hash) {
    return verification_failed(name + ": its terms reconstruct a file with hash `" + hash_to_string(computed) + "`");
  }
  return {};
}

// A CAS info block must describe the stored xorb: same chunks, offsets and total.
util::Status verify_xorb_entry(const XorbEntry& xorb, StoredXorbs& stored) {
  std::string name = "CAS info of xorb `" + hash_to_string(xorb.xorb_hash) + "`";
  auto chunks = stored.chunks(xorb.xorb_hash);
  if (!chunks) return std::move(chunks).error();
  const auto& stored_chunks = **chunks;
  if (stored_chunks.size() != xorb.chunks.size()) {
    return verification_failed(name + ": lists " + std::to_string(xorb.chunks.size()) + " chunks, the xorb has " +
                               std::to_string(stored_chunks.size()));
  }
  uint64_t offset = 0;
  for (size_t c = 0; c < stored_chunks.size(); ++c) {
    const XorbChunkEntry& entry = xorb.chunks[c];
    if (entry.chunk_hash != stored_chunks[c].hash || entry.unpacked_size != stored_chunks[c].size ||
        entry.byte_start != offset) {
      return verification_failed(name + ": chunk " + std::to_string(c) + " disagrees with the stored xorb");
    }
    offset += stored_chunks[c].size;
  }
  if (offset != xorb.unpacked_size) {
    return verification_failed(name + ": declares " + std::to_string(xorb.unpacked_size) +
                               " unpacked bytes, the xorb holds " + std::to_string(offset));
  }
  return {};
}

}  // namespace

VerificationBudget verification_budget(uint64_t shard_bytes) {
  return {std::max(kVerifyChunksFloor, shard_bytes * kVerifyChunksPerShardByte),
          std::max(kVerifyBytesFloor, shard_bytes * kVerifyBytesPerShardByte)};
}

util::Status check_shard_cost(const Shard& shard, uint64_t shard_bytes) {
  uint64_t limit = verification_budget(shard_bytes).chunk_references;
  uint64_t references = 0;
  for (const FileInfo& file : shard.files) {
    for (const FileTerm& term : file.terms) {
      if (term.chunk_end > term.chunk_begin) references += term.chunk_end - term.chunk_begin;
      if (references > limit) {
        util::Error error(util::ErrorKind::invalid, "Shard names too many chunks for its size");
        error.code = error_code::kShardTooCostly;
        return std::move(error)
            .with_cause("its file terms name more than " + std::to_string(limit) + " chunks in a shard of " +
                        std::to_string(shard_bytes) + " bytes")
            .with_hint("upload such files in several shards, or over LFS");
      }
    }
  }
  return {};
}

util::Status verify_uploaded_shard(const Shard& shard, const XorbChunksLookup& lookup) {
  StoredXorbs stored(lookup);
  for (const FileInfo& file : shard.files) KB_TRY(verify_file(file, stored));
  for (const XorbEntry& xorb : shard.xorbs) KB_TRY(verify_xorb_entry(xorb, stored));
  return {};
}

XorbEntry xorb_entry(const XorbInfo& xorb, uint64_t serialized_size) {
  XorbEntry entry;
  entry.xorb_hash = xorb.hash;
  entry.unpacked_size = uint32_t(xorb.unpacked_size);
  entry.serialized_size = uint32_t(serialized_size);
  uint32_t offset = 0;
  for (const auto& chunk : xorb.chunks) {
    entry.chunks.push_back({chunk.hash, offset, chunk.size});
    offset += chunk.size;
  }
  return entry;
}

}  // namespace kb::hub::xet
