// Blobs as files under the Hub root (see directory_blobs.h).
#include "hub/storage/directory_blobs.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "util/fs.h"

namespace kb::hub::storage {

namespace fs = std::filesystem;

namespace {

void fsync_path(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

util::Error io_error(const std::string& what, const std::string& key, const std::string& why) {
  return util::Error(util::ErrorKind::io, "Cannot " + what + " blob `" + key + "`: " + why);
}

}  // namespace

DirectoryBlobs::DirectoryBlobs(fs::path root) : root_(std::move(root)), staging_(root_ / "tmp") {
  std::error_code ec;
  fs::create_directories(staging_, ec);
}

util::Status DirectoryBlobs::put_file(const std::string& key, const fs::path& file) {
  fs::path target = root_ / key;
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  fsync_path(file);
  fs::rename(file, target, ec);
  if (ec) return io_error("store", key, ec.message());
  util::sync_directory(target.parent_path());
  return {};
}

util::Status DirectoryBlobs::put(const std::string& key, std::string_view data) {
  fs::path target = root_ / key;
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  return util::write_file_atomic(target, data);
}

util::Result<std::optional<uint64_t>> DirectoryBlobs::size(const std::string& key) const {
  std::error_code ec;
  auto status = fs::status(root_ / key, ec);
  if (ec || !fs::is_regular_file(status)) return std::optional<uint64_t>();
  uint64_t bytes = fs::file_size(root_ / key, ec);
  if (ec) return io_error("read the size of", key, ec.message());
  return std::optional<uint64_t>(bytes);
}

util::Result<std::string> DirectoryBlobs::read(const std::string& key, uint64_t offset, uint64_t length) const {
  fs::path path = root_ / key;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return util::Error(util::ErrorKind::not_found, "No blob `" + key + "`");
  std::string out;
  std::string buffer(static_cast<size_t>(std::min<uint64_t>(length, 1 << 20)), '\0');
  while (out.size() < length) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(buffer.size(), length - out.size()));
    ssize_t got = ::pread(fd, buffer.data(), want, static_cast<off_t>(offset + out.size()));
    if (got < 0) {
      ::close(fd);
      return io_error("read", key, "read failed");
    }
    if (got == 0) break;  // the end of the blob: clamped
    out.append(buffer.data(), static_cast<size_t>(got));
  }
  ::close(fd);
  return out;
}

util::Status DirectoryBlobs::remove(const std::string& key) {
  std::error_code ec;
  fs::remove(root_ / key, ec);
  if (ec) return io_error("remove", key, ec.message());
  return {};
}

util::Status DirectoryBlobs::walk(const std::string& prefix,
                                  const std::function<util::Status(const std::string& key)>& visit) const {
  // A prefix names a folder or the start of names in one ("objects/ab" or "objects/a").
  std::string folder = prefix.substr(0, prefix.rfind('/') == std::string::npos ? 0 : prefix.rfind('/'));
  std::error_code ec;
  if (!fs::is_directory(root_ / folder, ec)) return {};
  std::vector<std::string> keys;
  for (fs::recursive_directory_iterator it(root_ / folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    std::string key = it->path().lexically_relative(root_).generic_string();
    if (key.rfind(prefix, 0) != 0 || it->path().filename().string().find('.') != std::string::npos) continue;
    keys.push_back(std::move(key));
  }
  if (ec) return util::Error(util::ErrorKind::io, "Cannot list blobs under `" + prefix + "`: " + ec.message());
  std::sort(keys.begin(), keys.end());
  for (const auto& key : keys) KB_TRY(visit(key));
  return {};
}

std::optional<fs::path> DirectoryBlobs::local_path(const std::string& key) const { return root_ / key; }

}  // namespace kb::hub::storage
