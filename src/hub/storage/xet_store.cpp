// Xet storage of the Hub server (see xet_store.h).
#include "hub/storage/xet_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

#include "hub/storage/directory_records.h"
#include "hub/xet/file_builder.h"
#include "hub/xet/errors.h"
#include "hub/xet/hashing.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/strings.h"

namespace kb::hub::storage {

namespace fs = std::filesystem;

namespace {

constexpr const char* kXorbIndexMagic = "kb-xet-xorb-index 1";
constexpr const char* kFileMagic = "kb-xet-file 1";
constexpr uint64_t kDecodeWindow = 2 * 1024 * 1024;  // bytes decoded at once while streaming a file

bool is_hash(const std::string& text) {
  return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

util::Error corrupt(const std::string& path, const std::string& what) {
  return util::Error(util::ErrorKind::integrity, "Xet record `" + path + "` is corrupt: " + what);
}

template <class T>
bool parse_number(std::string_view text, T& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

std::string layout_text(const XorbLayout& layout) {
  std::string out = std::string(kXorbIndexMagic) + " " + xet::hash_to_string(layout.hash) + " " +
                    std::to_string(layout.chunks_size) + " " + std::to_string(layout.unpacked_size) + "\n";
  for (const auto& chunk : layout.chunks) {
    out += xet::hash_to_string(chunk.hash) + " " + std::to_string(chunk.offset) + " " +
           std::to_string(chunk.compressed_size) + " " + std::to_string(chunk.size) + " " +
           std::to_string(static_cast<int>(chunk.compression)) + "\n";
  }
  return out;
}

}  // namespace

XetStore::XetStore(const fs::path& hub_root, BlobStore& blobs)
    : owned_records_(std::make_unique<DirectoryRecords>(hub_root)),
      records_(owned_records_.get()),
      root_(hub_root / "xet"),
      blobs_(blobs) {}

XetStore::XetStore(RecordStore& records, const fs::path& hub_root, BlobStore& blobs)
    : records_(&records), root_(hub_root / "xet"), blobs_(blobs) {}

std::string XetStore::record(const char* kind, const std::string& hash) {
  return std::string("xet/") + kind + "/" + hash.substr(0, 2) + "/" + hash;
}

fs::path XetStore::sharded(const char* kind, const std::string& hash) const {
  return root_ / kind / hash.substr(0, 2) / hash;
}

std::string XetStore::xorb_key(const std::string& hash) { return "xet/xorbs/" + hash.substr(0, 2) + "/" + hash; }

bool XetStore::has_xorb(const std::string& hash) const {
  if (!is_hash(hash)) return false;
  auto exists = records_->exists(record("xorbs", hash) + ".index");
  return exists && *exists;
}

util::Result<bool> XetStore::put_xorb(std::string_view serialized, const XorbLayout& layout) {
  std::string hash = xet::hash_to_string(layout.hash);
  if (has_xorb(hash)) return false;
  // The body first, the index last: the index is what makes the xorb exist.
  KB_TRY(blobs_.put(xorb_key(hash), serialized.substr(0, layout.chunks_size)));
  KB_TRY(records_->write(record("xorbs", hash) + ".index", layout_text(layout)));
  return true;
}

util::Result<XorbLayout> XetStore::xorb_layout(const std::string& hash) const {
  if (!is_hash(hash)) return util::Error(util::ErrorKind::not_found, "No xorb `" + hash + "`");
  std::string path = record("xorbs", hash) + ".index";
  auto stored = records_->read(path);
  if (!stored) return std::move(stored).error();
  auto& text = *stored;
  if (!text) {
    util::Error error(util::ErrorKind::not_found, "No xorb `" + hash + "` in this Hub");
    error.code = xet::error_code::kUnknownXorb;
    return error;
  }
  auto lines = util::split(*text, '\n');
  if (lines.empty()) return corrupt(path, "empty");
  auto head = util::split(lines[0], ' ');
  XorbLayout layout;
  if (head.size() != 5 || head[0] + " " + head[1] != kXorbIndexMagic || head[2] != hash ||
      !parse_number(head[3], layout.chunks_size) || !parse_number(head[4], layout.unpacked_size)) {
    return corrupt(path, "bad header");
  }
  auto parsed = xet::hash_from_string(head[2]);
  if (!parsed) return corrupt(path, "bad hash");
  layout.hash = *parsed;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    auto fields = util::split(lines[i], ' ');
    xet::XorbChunk chunk;
    int compression = 0;
    auto chunk_hash = fields.size() == 5 ? xet::hash_from_string(fields[0]) : util::Result<xet::MerkleHash>(
                                                                                  corrupt(path, "bad chunk line"));
    if (!chunk_hash || !parse_number(fields[1], chunk.offset) || !parse_number(fields[2], chunk.compressed_size) ||
        !parse_number(fields[3], chunk.size) || !parse_number(fields[4], compression)) {
      return corrupt(path, "bad chunk line " + std::to_string(i));
    }
    chunk.hash = *chunk_hash;
    chunk.compression = static_cast<xet::CompressionScheme>(compression);
    layout.chunks.push_back(chunk);
  }
  return layout;
}

util::Result<std::string> XetStore::read_chunks(const std::string& hash, const XorbLayout& layout, uint32_t begin,
                                                uint32_t end) const {
  auto range = xet::chunk_byte_range(layout, begin, end);
  if (!range) return std::move(range).error();
  auto bytes = blobs_.read(xorb_key(hash), range->start, range->end - range->start);
  if (!bytes) return std::move(bytes).error();
  if (bytes->size() != range->end - range->start) {
    return util::Error(util::ErrorKind::io, "Short read of xorb `" + hash + "`");
  }
  return xet::decode_chunks(*bytes);
}

namespace {

std::string file_record_text(const XetFile& file) {
  std::string text = std::string(kFileMagic) + " " + file.hash + " " + std::to_string(file.size) + " " +
                     file.sha256 + "\n";
  for (const auto& term : file.terms) {
    text += term.xorb + " " + std::to_string(term.chunk_begin) + " " + std::to_string(term.chunk_end) + " " +
            std::to_string(term.unpacked_size) + "\n";
  }
  return text;
}

}  // namespace

uint64_t XetStore::file_record_bytes(const XetFile& file) {
  return file_record_text(file).size() + (file.sha256.empty() ? 0 : file.hash.size() + 1);
}

util::Status XetStore::put_file(const XetFile& file) {
  KB_TRY(records_->write(record("files", file.hash), file_record_text(file)));
  if (!file.sha256.empty()) KB_TRY(records_->write(record("sha256", file.sha256), file.hash + "\n"));
  return {};
}

util::Result<XetFile> XetStore::file(const std::string& hash) const {
  if (!is_hash(hash)) return util::Error(util::ErrorKind::not_found, "No Xet file `" + hash + "`");
  std::string path = record("files", hash);
  auto stored = records_->read(path);
  if (!stored) return std::move(stored).error();
  auto& text = *stored;
  if (!text) return util::Error(util::ErrorKind::not_found, "No Xet file `" + hash + "` in this Hub");
  auto lines = util::split(*text, '\n');
  auto head = lines.empty() ? std::vector<std::string>{} : util::split(lines[0], ' ');
  XetFile file;
  if (head.size() != 5 || head[0] + " " + head[1] != kFileMagic || head[2] != hash ||
      !parse_number(head[3], file.size)) {
    return corrupt(path, "bad header");
  }
  file.hash = hash;
  file.sha256 = head[4];
  uint64_t total = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    auto fields = util::split(lines[i], ' ');
    XetTerm term;
    if (fields.size() != 4 || !is_hash(fields[0]) || !parse_number(fields[1], term.chunk_begin) ||
        !parse_number(fields[2], term.chunk_end) || !parse_number(fields[3], term.unpacked_size) ||
        term.chunk_begin >= term.chunk_end) {
      return corrupt(path, "bad term line " + std::to_string(i));
    }
    term.xorb = fields[0];
    total += term.unpacked_size;
    file.terms.push_back(std::move(term));
  }
  if (total != file.size) return corrupt(path, "terms do not add up to the file size");
  return file;
}

std::optional<std::string> XetStore::file_for_sha256(const std::string& sha256) const {
  if (!is_hash(sha256)) return std::nullopt;
  auto text = records_->read(record("sha256", sha256));
  if (!text || !*text) return std::nullopt;
  std::string hash(util::trim(**text));
  if (!is_hash(hash)) return std::nullopt;
  auto exists = records_->exists(record("files", hash));
  if (!exists || !*exists) return std::nullopt;
  return hash;
}

util::Status XetStore::index_chunk(const std::string& chunk, const std::string& xorb, uint32_t index) {
  // The first xorb to hold a chunk keeps it.
  auto created = records_->create(record("chunks", chunk), xorb + " " + std::to_string(index) + "\n");
  if (!created) return std::move(created).error();
  return {};
}

std::optional<std::pair<std::string, uint32_t>> XetStore::chunk_location(const std::string& chunk) const {
  if (!is_hash(chunk)) return std::nullopt;
  auto text = records_->read(record("chunks", chunk));
  if (!text || !*text) return std::nullopt;
  auto fields = util::split(std::string(util::trim(**text)), ' ');
  uint32_t index = 0;
  if (fields.size() != 2 || !is_hash(fields[0]) || !parse_number(fields[1], index)) return std::nullopt;
  return std::make_pair(fields[0], index);
}

util::Status XetStore::store_built_xorb(const xet::SerializedXorb& built) {
  std::string hash = xet::hash_to_string(built.info.hash);
  auto stored = put_xorb(built.bytes, built.info);
  if (!stored) return std::move(stored).error();
  for (uint32_t i = 0; i < built.info.chunks.size(); ++i) {
    if (i == 0 || xet::is_global_dedup_eligible(built.info.chunks[i].hash)) {
      KB_TRY(index_chunk(xet::hash_to_string(built.info.chunks[i].hash), hash, i));
    }
  }
  return {};
}

util::Result<XetFile> XetStore::import_file(const std::string& blob_key, const std::string& sha256) {
  auto size = blobs_.size(blob_key);
  if (!size) return std::move(size).error();
  if (!size->has_value()) return util::Error(util::ErrorKind::not_found, "No blob `" + blob_key + "` to import");
  xet::FileBuilder builder([this](xet::SerializedXorb xorb) { return store_built_xorb(xorb); });
  constexpr uint64_t kWindow = 8 << 20;  // bytes read from the blob at once
  for (uint64_t offset = 0; offset < **size; offset += kWindow) {
    auto bytes = blobs_.read(blob_key, offset, kWindow);
    if (!bytes) return std::move(bytes).error();
    if (bytes->empty()) return util::Error(util::ErrorKind::io, "Short read of blob `" + blob_key + "`");
    KB_TRY(builder.update(*bytes));
  }
  auto info = builder.finish();
  if (!info) return std::move(info).error();
  std::string digest = info->sha256 ? util::to_hex(std::string_view(reinterpret_cast<const char*>(info->sha256->data()), 32)) : "";
  if (digest != sha256) {
    return util::Error(util::ErrorKind::integrity, "Stored object `" + sha256 + "` does not hash to its name");
  }
  XetFile file{xet::hash_to_string(info->file_hash), sha256, info->size(), {}};
  for (const auto& term : info->terms) {
    file.terms.push_back(XetTerm{xet::hash_to_string(term.xorb_hash), term.chunk_begin, term.chunk_end, term.unpacked_size});
  }
  KB_TRY(put_file(file));
  return file;
}

XetFileReader::XetFileReader(const XetStore& store, XetFile file) : store_(store), file_(std::move(file)) {}

util::Status XetFileReader::load_layout() {
  if (loaded_) return {};
  uint64_t offset = 0;
  for (size_t t = 0; t < file_.terms.size(); ++t) {
    const XetTerm& term = file_.terms[t];
    auto layout = store_.xorb_layout(term.xorb);
    if (!layout) return std::move(layout).error();
    if (term.chunk_end > layout->chunks.size()) {
      return util::Error(util::ErrorKind::integrity, "Term of Xet file `" + file_.hash + "` lies past its xorb");
    }
    for (uint32_t c = term.chunk_begin; c < term.chunk_end; ++c) {
      pieces_.push_back(Piece{offset, layout->chunks[c].size, t, c});
      offset += layout->chunks[c].size;
    }
    layouts_.push_back(std::move(*layout));
  }
  if (offset != file_.size) {
    return util::Error(util::ErrorKind::integrity, "Chunks of Xet file `" + file_.hash + "` do not add up to its size");
  }
  loaded_ = true;
  return {};
}

// Decodes from `piece` on, up to kDecodeWindow bytes of consecutive chunks of the same term.
util::Result<std::string> XetFileReader::decode(size_t piece) {
  size_t last = piece;
  uint64_t bytes = pieces_[piece].size;
  while (last + 1 < pieces_.size() && pieces_[last + 1].term == pieces_[piece].term &&
         bytes + pieces_[last + 1].size <= kDecodeWindow) {
    ++last;
    bytes += pieces_[last].size;
  }
  const XetTerm& term = file_.terms[pieces_[piece].term];
  auto decoded = store_.read_chunks(term.xorb, layouts_[pieces_[piece].term], pieces_[piece].chunk,
                                    pieces_[last].chunk + 1);
  if (!decoded) return std::move(decoded).error();
  if (decoded->size() != bytes) {
    return util::Error(util::ErrorKind::integrity, "Xorb `" + term.xorb + "` decodes to unexpected sizes");
  }
  return decoded;
}

bool XetFileReader::read(uint64_t offset, uint64_t length, const std::function<bool(const char*, size_t)>& write) {
  if (!load_layout()) return false;
  uint64_t end = std::min(offset + length, file_.size);
  while (offset < end) {
    // The piece holding `offset`: the last one starting at or before it.
    auto it = std::upper_bound(pieces_.begin(), pieces_.end(), offset,
                               [](uint64_t value, const Piece& p) { return value < p.file_offset; });
    size_t piece = static_cast<size_t>(it - pieces_.begin()) - 1;
    uint64_t window_start = pieces_[piece].file_offset;
    if (cached_piece_ == SIZE_MAX || offset < cached_start_ || offset >= cached_start_ + cached_.size()) {
      auto decoded = decode(piece);
      if (!decoded) return false;
      cached_ = std::move(*decoded);
      cached_piece_ = piece;
      cached_start_ = window_start;
    }
    uint64_t from = offset - cached_start_;
    uint64_t count = std::min<uint64_t>(cached_.size() - from, end - offset);
    if (!write(cached_.data() + from, count)) return false;
    offset += count;
  }
  return true;
}

}  // namespace kb::hub::storage
