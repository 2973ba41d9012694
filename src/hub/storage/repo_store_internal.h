// Internal to the repository store's sources (repo_*.cpp): the per-repository write lock and
// edit_refs, the "repository exists, lock it, read its refs" step of every ref change.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <utility>

#include "hub/storage/repo_store.h"

namespace kb::hub::storage {

class RepoStore::WriteLock {
 public:
  WriteLock(std::shared_ptr<std::mutex> mutex, const std::filesystem::path& lock_file)
      : mutex_(std::move(mutex)), guard_(*mutex_) {
    fd_ = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~WriteLock() {
    if (fd_ >= 0) {
      ::flock(fd_, LOCK_UN);
      ::close(fd_);
    }
  }
  WriteLock(const WriteLock&) = delete;
  WriteLock& operator=(const WriteLock&) = delete;
  bool ok() const { return fd_ >= 0; }

 private:
  std::shared_ptr<std::mutex> mutex_;
  std::lock_guard<std::mutex> guard_;
  int fd_ = -1;
};

template <typename Edit>
auto RepoStore::edit_refs(const RepoId& repo, Edit edit) {
  using Answer = decltype(edit(std::declval<const std::filesystem::path&>(), std::declval<Refs&>()));
  auto info = repo_info(repo);
  if (!info.ok()) return Answer(info.error());
  std::filesystem::path dir = repo_dir(repo);
  WriteLock lock(repo_mutex(dir.string()), dir / "lock");
  auto current = read_refs(dir);
  if (!current.ok()) return Answer(current.error());
  return edit(dir, *current);
}

}  // namespace kb::hub::storage
