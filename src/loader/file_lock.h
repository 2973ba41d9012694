// An exclusive cross-process file lock (flock) held for the lifetime of the object. Used for
// the `.locks/` files of the cache so that concurrent loaders download each blob once.
#pragma once

#include <filesystem>

#include "util/result.h"

namespace kb::loader {

class FileLock {
 public:
  // Blocks until the lock on `path` (created with its parent directories) is held.
  static util::Result<FileLock> acquire(const std::filesystem::path& path);

  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace kb::loader
