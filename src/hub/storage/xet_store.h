// Xet storage of the Hub server (docs/hub-xet.md), under <root>/xet/:
//   xorbs/<h[0:2]>/<hash>        a verified xorb exactly as uploaded (content-addressed, stored once):
//                                the blob xet/xorbs/<h[0:2]>/<hash> of the Hub's BlobStore (backend.h)
//   xorbs/<h[0:2]>/<hash>.index  its chunk layout ("kb-xet-xorb-index 1"), so serving never re-parses
//   files/<h[0:2]>/<hash>        a file reconstruction ("kb-xet-file 1": size, sha256, terms)
//   sha256/<s[0:2]>/<sha256>     the Xet file hash of the content with this SHA-256 (commits and
//                                resolve name files by SHA-256, as LFS does)
//   chunks/<h[0:2]>/<hash>       the xorb holding a chunk eligible for global dedup, and its index
// Hashes are in the protocol's string form (xet::hash_to_string). Everything but the xorb bodies is a
// record (backend.h, written atomically by the RecordStore); xorb bodies are files written to a
// temporary file and renamed, so a crash never leaves a partial xorb under its final name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hub/storage/backend.h"
#include "hub/xet/shard.h"
#include "hub/xet/xorb.h"
#include "util/result.h"

namespace kb::hub::storage {

// A stored xorb's layout: what parse_xorb found when it was uploaded.
using XorbLayout = xet::XorbInfo;

// One term of a stored file: chunks [chunk_begin, chunk_end) of `xorb`.
struct XetTerm {
  std::string xorb;
  uint32_t chunk_begin = 0;
  uint32_t chunk_end = 0;
  uint64_t unpacked_size = 0;
};

struct XetFile {
  std::string hash;
  std::string sha256;  // hex
  uint64_t size = 0;
  std::vector<XetTerm> terms;
};

class XetStore {
 public:
  // Records under `hub_root` (the directory back end); xorb bodies in `blobs`.
  XetStore(const std::filesystem::path& hub_root, BlobStore& blobs);
  // Records in `records` (which outlives the store); xorb bodies in `blobs`.
  XetStore(RecordStore& records, const std::filesystem::path& hub_root, BlobStore& blobs);

  bool has_xorb(const std::string& hash) const;
  // Stores a verified xorb and its layout; false when it was already stored.
  util::Result<bool> put_xorb(std::string_view serialized, const XorbLayout& layout);
  util::Result<XorbLayout> xorb_layout(const std::string& hash) const;
  // The blob key of a xorb's bytes.
  static std::string xorb_key(const std::string& hash);
  BlobStore& blobs() const { return blobs_; }
  // Uncompressed bytes of chunks [begin, end) of a stored xorb.
  util::Result<std::string> read_chunks(const std::string& hash, const XorbLayout& layout, uint32_t begin,
                                        uint32_t end) const;

  util::Status put_file(const XetFile& file);
  // Bytes put_file writes for `file` (its record and its SHA-256 index entry), for the quota.
  static uint64_t file_record_bytes(const XetFile& file);
  util::Result<XetFile> file(const std::string& hash) const;
  // The Xet file hash recorded for content with this SHA-256 (hex), if any.
  std::optional<std::string> file_for_sha256(const std::string& sha256) const;

  // Global dedup index: chunk hash -> (xorb, chunk index).
  util::Status index_chunk(const std::string& chunk, const std::string& xorb, uint32_t index);
  std::optional<std::pair<std::string, uint32_t>> chunk_location(const std::string& chunk) const;

  // Splits the content of a file into chunks and xorbs (what a Xet client would have uploaded),
  // stores them and records the file under its SHA-256 `sha256`; returns the file. For bodies
  // that came through LFS or our bulk path, so Xet clients can download them too.
  // The content is read from the blob `blob_key` (an object, objects/…).
  util::Result<XetFile> import_file(const std::string& blob_key, const std::string& sha256);

  // Bytes stored under <root>/xet (xorbs and records), for measurements and tests.
  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path sharded(const char* kind, const std::string& hash) const;
  // The record path of a sharded record ("xet/files/ab/<hash>").
  static std::string record(const char* kind, const std::string& hash);
  util::Status store_built_xorb(const xet::SerializedXorb& built);

  std::unique_ptr<RecordStore> owned_records_;  // the directory back end of XetStore(hub_root)
  RecordStore* records_;
  std::filesystem::path root_;
  BlobStore& blobs_;
};

// Streams byte ranges of a stored file by decoding its terms' chunks, one chunk range at a time
// (resolve serves Xet-uploaded files with it, so LFS clients and our loader read them unchanged).
class XetFileReader {
 public:
  XetFileReader(const XetStore& store, XetFile file);
  // Writes bytes [offset, offset + length) to `write`; false when the store fails or `write` does.
  bool read(uint64_t offset, uint64_t length, const std::function<bool(const char*, size_t)>& write);
  const XetFile& file() const { return file_; }

 private:
  struct Piece {
    uint64_t file_offset = 0;  // where this chunk starts in the file
    uint32_t size = 0;
    size_t term = 0;
    uint32_t chunk = 0;
  };
  util::Status load_layout();
  util::Result<std::string> decode(size_t piece);

  const XetStore& store_;
  XetFile file_;
  std::vector<Piece> pieces_;
  std::vector<XorbLayout> layouts_;  // per term
  bool loaded_ = false;
  size_t cached_piece_ = SIZE_MAX;
  uint64_t cached_start_ = 0;  // file offset of cached_'s first byte
  std::string cached_;
};

}  // namespace kb::hub::storage
