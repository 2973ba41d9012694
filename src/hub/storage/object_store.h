// Content-addressed blob storage of the Hub server: every file body (regular or LFS) is stored
// once under objects/<sha256[0:2]>/<sha256>, written to a temporary file, fsynced and renamed,
// so a crash never leaves a partial object under its final name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

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
  explicit ObjectStore(std::filesystem::path root);

  // Stores bytes held in memory (regular files from ndjson commits).
  util::Result<ObjectInfo> put_bytes(std::string_view content);
  // Moves an already written temporary file (from new_temp_path) into the store after hashing
  // it; `expected_sha256` (if not empty) must match.
  util::Result<ObjectInfo> put_file(const std::filesystem::path& temp_file,
                                    const std::string& expected_sha256);

  bool contains(const std::string& sha256) const;
  // Removes a stored body (no-op if absent).
  util::Status remove(const std::string& sha256);
  std::filesystem::path path_of(const std::string& sha256) const;
  // A unique path in the store's temp folder (same filesystem, so rename is atomic).
  std::filesystem::path new_temp_path() const;

 private:
  std::filesystem::path root_;
};

}  // namespace kb::hub::storage
