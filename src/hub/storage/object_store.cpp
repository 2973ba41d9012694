// Object store implementation: hashing, atomic placement, lookups.
#include "hub/storage/object_store.h"

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

}  // namespace

ObjectStore::ObjectStore(BlobStore& blobs) : blobs_(blobs) {}

std::string ObjectStore::key_of(const std::string& sha256) { return "objects/" + sha256.substr(0, 2) + "/" + sha256; }

std::optional<uint64_t> ObjectStore::size(const std::string& sha256) const {
  if (!is_hex64(sha256)) return std::nullopt;
  auto size = blobs_.size(key_of(sha256));
  if (!size) return std::nullopt;
  return *size;
}

bool ObjectStore::contains(const std::string& sha256) const { return size(sha256).has_value(); }

util::Result<std::string> ObjectStore::read(const std::string& sha256, uint64_t offset, uint64_t length) const {
  if (!is_hex64(sha256)) return util::Error(util::ErrorKind::not_found, "No object `" + sha256 + "`");
  return blobs_.read(key_of(sha256), offset, length);
}

util::Status ObjectStore::remove(const std::string& sha256) {
  if (!is_hex64(sha256)) return {};
  auto removed = blobs_.remove(key_of(sha256));
  if (!removed) return removed.error().context("Cannot remove object " + sha256);
  return {};
}

std::optional<fs::path> ObjectStore::local_path(const std::string& sha256) const {
  if (!is_hex64(sha256)) return std::nullopt;
  return blobs_.local_path(key_of(sha256));
}

std::optional<std::string> ObjectStore::presigned_get(const std::string& sha256, std::chrono::seconds ttl) const {
  if (!is_hex64(sha256)) return std::nullopt;
  return blobs_.presigned_get(key_of(sha256), ttl);
}

fs::path ObjectStore::new_temp_path() const {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 random{std::random_device{}()};
  return blobs_.staging_dir() /
         ("obj-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
          std::to_string(random()));
}

util::Result<ObjectInfo> ObjectStore::put_bytes(std::string_view content) {
  ObjectInfo info;
  info.sha256 = util::sha256_hex(content);
  info.git_oid = util::git_blob_sha1(content);
  info.size = content.size();
  if (contains(info.sha256)) return info;
  KB_TRY(blobs_.put(key_of(info.sha256), content));
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
  auto stored = blobs_.put_file(key_of(info.sha256), temp_file);
  if (!stored) return stored.error().context("Cannot store object " + info.sha256);
  return info;
}

}  // namespace kb::hub::storage
