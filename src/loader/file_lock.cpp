// flock-based FileLock. The kernel releases the lock when the process dies (kill -9 included),
// so a crashed downloader never blocks later loads.
#include "loader/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kb::loader {

util::Result<FileLock> FileLock::acquire(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return util::Error(util::ErrorKind::io,
                       "Cannot open lock file " + path.string() + ": " + std::strerror(errno))
        .with_hint("the kernel cache must be writable: point KERNELS_CACHE (or HF_HUB_CACHE) at a writable directory");
  }
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    ::close(fd);
    return util::Error(util::ErrorKind::io,
                       "Cannot lock " + path.string() + ": " + std::strerror(err));
  }
  return FileLock(fd);
}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the flock
}

}  // namespace kb::loader
