// Filesystem helpers (see fs.h).
#include "util/fs.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

namespace kb::util {

Result<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(ErrorKind::io, "Cannot open `" + path.string() + "` for reading");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return Error(ErrorKind::io, "Cannot read from `" + path.string() + "`");
  return buffer.str();
}

namespace {
std::string random_suffix() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  static const char* alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string s;
  for (int i = 0; i < 10; ++i) s += alphabet[rng() % 36];
  return s;
}
}  // namespace

void sync_directory(const fs::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

Status write_file_atomic(const fs::path& path, std::string_view content) {
  fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::error_code ec;
  fs::create_directories(dir, ec);
  fs::path tmp = dir / ("." + path.filename().string() + ".tmp-" + random_suffix());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) {
    return Error(ErrorKind::io, "Cannot write `" + path.string() + "`")
        .with_cause(std::strerror(errno));
  }
  const char* data = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string reason = std::strerror(errno);
      ::close(fd);
      fs::remove(tmp, ec);
      return Error(ErrorKind::io, "Cannot write `" + path.string() + "`").with_cause(reason);
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string reason = std::strerror(errno);
    fs::remove(tmp, ec);
    return Error(ErrorKind::io, "Cannot write `" + path.string() + "`").with_cause(reason);
  }
  sync_directory(dir);
  return {};
}

std::vector<std::string> list_files_recursive(const fs::path& root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    // Lexical, so a symlink is listed under its own name rather than its target's.
    if (it->is_regular_file(ec)) out.push_back(it->path().lexically_relative(root).generic_string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TempDir::TempDir(const std::string& prefix) {
  fs::path base = fs::temp_directory_path();
  for (;;) {
    fs::path candidate = base / (prefix + "-" + random_suffix());
    std::error_code ec;
    if (fs::create_directory(candidate, ec)) {
      path_ = candidate;
      return;
    }
  }
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace kb::util
