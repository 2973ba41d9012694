// The Hub's blobs as files under its root (backend.h), exactly where earlier versions kept them:
// objects/<sha256[0:2]>/<sha256> and xet/xorbs/<hash[0:2]>/<hash>, a blob's key being its path
// relative to the root. Each is written to a file in tmp/ (same file system), fsynced and
// renamed, so a crash never leaves a partial blob under its key.
#pragma once

#include "hub/storage/backend.h"

namespace kb::hub::storage {

class DirectoryBlobs final : public BlobStore {
 public:
  explicit DirectoryBlobs(std::filesystem::path root);

  util::Status put_file(const std::string& key, const std::filesystem::path& file) override;
  util::Status put(const std::string& key, std::string_view data) override;
  util::Result<std::optional<uint64_t>> size(const std::string& key) const override;
  util::Result<std::string> read(const std::string& key, uint64_t offset, uint64_t length) const override;
  util::Status remove(const std::string& key) override;
  // Files whose name holds a '.' are not blobs (a xorb's `.index` record, temporaries): skipped.
  util::Status walk(const std::string& prefix,
                    const std::function<util::Status(const std::string& key)>& visit) const override;
  std::optional<std::filesystem::path> local_path(const std::string& key) const override;
  std::optional<std::string> presigned_get(const std::string&, std::chrono::seconds) const override {
    return std::nullopt;
  }
  const std::filesystem::path& staging_dir() const override { return staging_; }

 private:
  std::filesystem::path root_;
  std::filesystem::path staging_;
};

}  // namespace kb::hub::storage
