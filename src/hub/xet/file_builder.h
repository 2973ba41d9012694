// Converting content into Xet form on the server (files that arrived through LFS or the bulk path
// must be downloadable by Xet clients): chunk it, pack the chunks into xorbs (handed to the caller
// as each fills up), and describe the file as terms with verification hashes and its SHA-256.
// Each file gets xorbs of its own: no deduplication against chunks the store already holds.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "hub/xet/chunking.h"
#include "hub/xet/shard.h"
#include "hub/xet/xorb.h"
#include "util/hash.h"
#include "util/result.h"

namespace kb::hub::xet {

class FileBuilder {
 public:
  // Receives every completed xorb (store it before the file's terms are used).
  using OnXorb = std::function<util::Status(SerializedXorb xorb)>;
  explicit FileBuilder(OnXorb on_xorb);
  util::Status update(std::string_view data);
  // Flushes the last xorb and returns the file's description: file hash, terms, SHA-256.
  util::Result<FileInfo> finish();

 private:
  util::Status add_chunk(std::string_view chunk);
  util::Status flush_xorb();

  OnXorb on_xorb_;
  Chunker chunker_;
  XorbBuilder xorb_;
  util::Hasher sha256_{util::HashAlgorithm::sha256};
  std::vector<ChunkHashAndSize> file_chunks_;
  std::vector<ChunkHashAndSize> xorb_chunks_;  // of the xorb being filled
  FileInfo file_;
  util::Status failed_;
};

}  // namespace kb::hub::xet
