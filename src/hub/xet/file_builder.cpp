// Content -> chunks -> xorbs -> file terms, for files the server converts into Xet form.
#include "hub/xet/file_builder.h"

#include <cstring>

namespace kb::hub::xet {

FileBuilder::FileBuilder(OnXorb on_xorb) : on_xorb_(std::move(on_xorb)) {}

util::Status FileBuilder::update(std::string_view data) {
  chunker_.update(data, [&](std::string_view chunk) {
    if (failed_) failed_ = add_chunk(chunk);
  });
  sha256_.update(data);
  return failed_;
}

util::Status FileBuilder::add_chunk(std::string_view chunk) {
  if (!xorb_.add_chunk(chunk)) {
    KB_TRY(flush_xorb());
    xorb_.add_chunk(chunk);  // an empty xorb always takes one chunk
  }
  ChunkHashAndSize entry{xorb_.last_chunk_hash(), chunk.size()};
  file_chunks_.push_back(entry);
  xorb_chunks_.push_back(entry);
  return {};
}

util::Status FileBuilder::flush_xorb() {
  if (xorb_.empty()) return {};
  SerializedXorb xorb = xorb_.finish();
  FileTerm term;
  term.xorb_hash = xorb.info.hash;
  term.unpacked_size = uint32_t(xorb.info.unpacked_size);
  term.chunk_begin = 0;
  term.chunk_end = uint32_t(xorb.info.chunks.size());
  std::vector<MerkleHash> hashes;
  hashes.reserve(xorb_chunks_.size());
  for (const auto& chunk : xorb_chunks_) hashes.push_back(chunk.hash);
  term.verification = verification_range_hash(hashes);
  file_.terms.push_back(term);
  xorb_chunks_.clear();
  return on_xorb_(std::move(xorb));
}

util::Result<FileInfo> FileBuilder::finish() {
  chunker_.finish([&](std::string_view chunk) {
    if (failed_) failed_ = add_chunk(chunk);
  });
  if (!failed_) return std::move(failed_).error();
  KB_TRY(flush_xorb());
  file_.file_hash = file_hash(file_chunks_);
  std::string digest = sha256_.finish();
  std::array<uint8_t, 32> sha256{};
  std::memcpy(sha256.data(), digest.data(), sha256.size());
  file_.sha256 = sha256;
  return std::move(file_);
}

}  // namespace kb::hub::xet
