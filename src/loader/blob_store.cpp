// Blob commit and snapshot linking (see blob_store.h for the crash-safety argument).
#include "loader/blob_store.h"

#include <unistd.h>

#include <fstream>
#include <random>

#include "loader/cache_path.h"
#include "util/fs.h"
#include "util/hash.h"

namespace kb::loader {
namespace {

std::string unique_suffix() {
  static std::mt19937_64 rng{std::random_device{}()};
  return "." + std::to_string(::getpid()) + "." + std::to_string(rng() % 1000000007ULL) + ".tmp";
}

}  // namespace

util::Result<bool> content_matches_etag(const std::filesystem::path& content_path, const std::string& etag) {
  if (etag.size() == 64) {
    KB_TRY_ASSIGN(auto digest, util::hash_file(util::HashAlgorithm::sha256, content_path));
    return util::to_hex(digest) == etag;
  }
  if (etag.size() == 40) {
    KB_TRY_ASSIGN(auto content, util::read_file(content_path));
    return util::git_blob_sha1(content) == etag;
  }
  return false;  // an ETag we cannot check is never trusted
}

util::Status commit_blob(const RepoCache& cache, const std::filesystem::path& incomplete,
                         const std::string& etag) {
  KB_TRY_ASSIGN(auto ok, content_matches_etag(incomplete, etag));
  if (!ok) {
    std::error_code ec;
    std::filesystem::remove(incomplete, ec);
    return util::Error(util::ErrorKind::integrity,
                       "Downloaded file does not match its ETag " + etag + "; it was discarded");
  }
  auto target = cache.blob_path(etag);
  KB_TRY(check_inside(cache.root(), target));
  std::error_code ec;
  std::filesystem::create_directories(target.parent_path(), ec);
  {
    // Make the bytes durable before the rename publishes them.
    std::FILE* f = std::fopen(incomplete.c_str(), "rb");
    if (f != nullptr) {
      ::fsync(fileno(f));
      std::fclose(f);
    }
  }
  std::filesystem::rename(incomplete, target, ec);
  if (ec) return util::Error(util::ErrorKind::io, "Cannot move blob into place: " + ec.message());
  util::sync_directory(target.parent_path());
  return {};
}

util::Status link_snapshot(const RepoCache& cache, const std::string& commit, const std::string& path,
                           const std::string& etag) {
  KB_TRY_ASSIGN(auto joined, join_inside(cache.root(), cache.snapshot_dir(commit), path));
  const auto& link = joined;
  KB_TRY(check_inside(cache.root(), cache.blob_path(etag)));
  std::error_code ec;
  std::filesystem::create_directories(link.parent_path(), ec);
  auto relative = cache.blob_path(etag).lexically_relative(link.parent_path());
  auto tmp = link;
  tmp += unique_suffix();
  std::filesystem::create_symlink(relative, tmp, ec);
  if (ec) {
    // Filesystems without symlinks: copy, as huggingface_hub does.
    std::filesystem::copy_file(cache.blob_path(etag), tmp, std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) return util::Error(util::ErrorKind::io, "Cannot create " + link.string() + ": " + ec.message());
  }
  std::filesystem::rename(tmp, link, ec);
  if (ec) return util::Error(util::ErrorKind::io, "Cannot create " + link.string() + ": " + ec.message());
  return {};
}

void forget_file(const RepoCache& cache, const std::string& commit, const std::string& path) {
  auto link = join_inside(cache.root(), cache.snapshot_dir(commit), path);
  if (!link) return;
  std::error_code ec;
  if (std::filesystem::is_symlink(*link, ec)) {
    auto target = std::filesystem::read_symlink(*link, ec);
    // Only a blob of this cache is removed, never what a planted link points at.
    auto blob = link->parent_path() / target;
    if (!ec && check_inside(cache.root(), blob)) std::filesystem::remove(blob, ec);
  }
  std::filesystem::remove(*link, ec);
}

void mark_missing(const RepoCache& cache, const std::string& commit, const std::string& path) {
  auto marker = join_inside(cache.root(), cache.no_exist_dir(commit), path);
  if (!marker) return;  // only an optimisation
  std::error_code ec;
  std::filesystem::create_directories(marker->parent_path(), ec);
  std::ofstream touch(*marker, std::ios::app);
}

}  // namespace kb::loader
