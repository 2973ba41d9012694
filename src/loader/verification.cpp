// Snapshot verification (digest, blob content, lock hash).
#include "loader/verification.h"

#include "loader/blob_store.h"
#include "loader/lockfile.h"
#include "metadata/digest.h"
#include "util/strings.h"

namespace kb::loader {
namespace {

namespace fs = std::filesystem;


// (relative path, blob name) for every symlinked file of the variant.
std::vector<std::pair<std::string, std::string>> linked_files(const fs::path& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    auto relative = it->path().lexically_relative(dir).generic_string();
    if (python_bytecode(relative)) continue;
    if (!it->is_symlink(ec)) continue;
    auto target = fs::read_symlink(it->path(), ec);
    if (ec) continue;
    out.emplace_back(relative, target.filename().string());
  }
  return out;
}

}  // namespace

std::vector<std::string> corrupted_blobs(const RepoCache& cache, const std::string& commit,
                                         const std::string& variant) {
  std::vector<std::string> bad;
  auto dir = cache.snapshot_dir(commit) / "build" / variant;
  for (const auto& [relative, etag] : linked_files(dir)) {
    auto matches = content_matches_etag(dir / relative, etag);
    if (!matches || !*matches) bad.push_back(relative);
  }
  return bad;
}

util::Result<std::string> snapshot_lock_hash(const RepoCache& cache, const std::string& commit,
                                             const std::string& variant) {
  std::vector<TreeFile> files;
  for (const auto& [relative, etag] : linked_files(cache.snapshot_dir(commit) / "build" / variant)) {
    files.push_back(TreeFile{"build/" + variant + "/" + relative, etag});
  }
  auto locks = compute_variant_locks(files);
  auto it = locks.find(variant);
  if (it == locks.end()) return util::Error(util::ErrorKind::integrity, "Variant " + variant + " is not lockable");
  return it->second.hash;
}

util::Status verify_snapshot(const RepoCache& cache, const std::string& commit, const std::string& variant,
                             const metadata::Metadata& metadata, const std::optional<std::string>& lock_hash) {
  auto dir = cache.snapshot_dir(commit) / "build" / variant;
  // With a digest, every file but metadata.json is covered by it: only that one is checked
  // against its blob name here (hashing each large file once more would double the cost).
  std::vector<std::string> bad;
  if (metadata.digest) {
    for (const auto& [relative, etag] : linked_files(dir)) {
      if (relative != "metadata.json") continue;
      auto matches = content_matches_etag(dir / relative, etag);
      if (!matches || !*matches) bad.push_back(relative);
    }
  } else {
    bad = corrupted_blobs(cache, commit, variant);
  }
  if (!bad.empty()) {
    std::vector<std::string> lines;
    for (const auto& b : bad) lines.push_back("File content does not match its blob name: " + b);
    return metadata::digest_mismatch(lines);
  }
  if (metadata.digest) KB_TRY(metadata::verify_digest(dir, *metadata.digest));
  if (lock_hash && (util::starts_with(variant, "torch") || util::starts_with(variant, "tvm-ffi"))) {
    KB_TRY_ASSIGN(auto actual, snapshot_lock_hash(cache, commit, variant));
    if (actual != *lock_hash) {
      return util::Error(util::ErrorKind::integrity, "Variant " + variant + " does not match its lock hash: expected " +
                                                         *lock_hash + ", got " + actual)
          .with_hint("the variant differs from the one `kernels lock` recorded: if the new build is trusted, run "
                     "`kernels lock <project>` again");
    }
  }
  return {};
}

bool python_bytecode(const std::string& relative) {
  if (util::ends_with(relative, ".pyc")) return true;
  for (const auto& part : util::split(relative, '/')) {
    if (part == "__pycache__") return true;
  }
  return false;
}

}  // namespace kb::loader
