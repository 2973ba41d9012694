// Content-addressed storage of file bodies (regular or LFS): each is stored once, as the blob
// objects/<sha256[0:2]>/<sha256> of the Hub's BlobStore (backend.h: files under the root, or an
// object store), which never leaves a partial blob under its key.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "hub/storage/backend.h"
#include "util/result.h"

namespace kb::hub::storage {

// What the store knows about one stored body.
struct ObjectInfo {
  std::string sha256;    // hex, the storage key
  std::string git_oid;   // git blob sha1 of the content, hex
  uint64_t size = 0;
};

class ObjectStore {
 public:
  explicit ObjectStore(BlobStore& blobs);

  // Stores bytes held in memory (regular files from ndjson commits).
  util::Result<ObjectInfo> put_bytes(std::string_view content);
  // Moves an already written temporary file (from new_temp_path) into the store after hashing
  // it; `expected_sha256` (if not empty) must match.
  util::Result<ObjectInfo> put_file(const std::filesystem::path& temp_file,
                                    const std::string& expected_sha256);

  bool contains(const std::string& sha256) const;
  // Size of a stored body; nullopt when absent (or when the store cannot be read).
  std::optional<uint64_t> size(const std::string& sha256) const;
  // Bytes [offset, offset + length) of a stored body, clamped to it.
  util::Result<std::string> read(const std::string& sha256, uint64_t offset, uint64_t length) const;
  // Removes a stored body (no-op if absent).
  util::Status remove(const std::string& sha256);
  // The blob key of a body: objects/<sha256[0:2]>/<sha256>.
  static std::string key_of(const std::string& sha256);
  // A local file holding the body (the directory store), served with the kernel's help.
  std::optional<std::filesystem::path> local_path(const std::string& sha256) const;
  // A URL any client may GET the body from for `ttl` (an object store), or nullopt.
  std::optional<std::string> presigned_get(const std::string& sha256, std::chrono::seconds ttl) const;
  // A unique path in the store's staging folder (for the directory store the same file system,
  // so storing it is a rename).
  std::filesystem::path new_temp_path() const;
  BlobStore& blobs() const { return blobs_; }

 private:
  BlobStore& blobs_;
};

}  // namespace kb::hub::storage
