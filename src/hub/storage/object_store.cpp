// Object store implementation: hashing, atomic placement, lookups.
#include "hub/storage/object_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <random>

#include "util/fs.h"
#include "util/hash.h"

namespace kb::hub::storage {

namespace fs = std::filesystem;

namespace {

bool is_hex64(const std::string& text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

void fsync_path(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace

ObjectStore::ObjectStore(fs::path root) : root_(std::move(root)) {
  std::error_code ec;
  fs::create_directories(root_ / "objects", ec);
  fs::create_directories(root_ / "tmp", ec);
}

fs::path ObjectStore::path_of(const std::string& sha256) const {
  return root_ / "objects" / sha256.substr(0, 2) / sha256;
}

bool ObjectStore::contains(const std::string& sha256) const {
  if (!is_hex64(sha256)) return false;
  std::error_code ec;
  return fs::is_regular_file(path_of(sha256), ec);
}

util::Status ObjectStore::remove(const std::string& sha256) {
  if (!is_hex64(sha256)) return {};
  std::error_code ec;
  fs::remove(path_of(sha256), ec);
  if (ec) return util::Error(util::ErrorKind::io, "Cannot remove object " + sha256 + ": " + ec.message());
  return {};
}

fs::path ObjectStore::new_temp_path() const {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 random{std::random_device{}()};
  return root_ / "tmp" /
         ("obj-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
          std::to_string(random()));
}

util::Result<ObjectInfo> ObjectStore::put_bytes(std::string_view content) {
  ObjectInfo info;
  info.sha256 = util::sha256_hex(content);
  info.git_oid = util::git_blob_sha1(content);
  info.size = content.size();
  if (contains(info.sha256)) return info;
  fs::path final_path = path_of(info.sha256);
  std::error_code ec;
  fs::create_directories(final_path.parent_path(), ec);
  KB_TRY(util::write_file_atomic(final_path, content));
  return info;
}

util::Result<ObjectInfo> ObjectStore::put_file(const fs::path& temp_file,
                                               const std::string& expected_sha256) {
  // One pass computes both digests; the git oid needs the size up front.
  std::error_code ec;
  uint64_t size = fs::file_size(temp_file, ec);
  if (ec) return util::Error(util::ErrorKind::io, "Cannot read uploaded object: " + ec.message());
  std::ifstream in(temp_file, std::ios::binary);
  util::Hasher sha256(util::HashAlgorithm::sha256);
  util::Hasher sha1(util::HashAlgorithm::sha1);
  sha1.update("blob " + std::to_string(size) + std::string(1, '\0'));
  std::string buffer(1 << 20, '\0');
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    std::string_view chunk(buffer.data(), static_cast<size_t>(in.gcount()));
    sha256.update(chunk);
    sha1.update(chunk);
  }
  ObjectInfo info;
  info.sha256 = util::to_hex(sha256.finish());
  info.git_oid = util::to_hex(sha1.finish());
  info.size = size;
  if (!expected_sha256.empty() && expected_sha256 != info.sha256) {
    fs::remove(temp_file, ec);
    return util::Error(util::ErrorKind::integrity,
                       "Uploaded content has sha256 " + info.sha256 + ", expected " + expected_sha256);
  }
  if (contains(info.sha256)) {
    fs::remove(temp_file, ec);
    return info;
  }
  fs::path final_path = path_of(info.sha256);
  fs::create_directories(final_path.parent_path(), ec);
  fsync_path(temp_file);
  fs::rename(temp_file, final_path, ec);
  if (ec) return util::Error(util::ErrorKind::io, "Cannot store object: " + ec.message());
  util::sync_directory(final_path.parent_path());
  return info;
}

}  // namespace kb::hub::storage
