// Cache layout paths and ref handling (docs/hub-api.md).
#include "loader/cache_layout.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "hub/protocol/names.h"
#include "loader/cache_path.h"
#include "util/fs.h"
#include "util/strings.h"

namespace kb::loader {
namespace {

std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

}  // namespace

fs::path hf_hub_cache_root() {
  if (auto v = env("HF_HUB_CACHE")) return fs::path(*v);
  if (auto v = env("HF_HOME")) return fs::path(*v) / "hub";
  if (auto v = env("XDG_CACHE_HOME")) return fs::path(*v) / "huggingface" / "hub";
  auto home = env("HOME");
  return fs::path(home ? *home : ".") / ".cache" / "huggingface" / "hub";
}

fs::path default_cache_root() {
  if (auto v = env("KERNELS_CACHE")) return fs::path(*v);
  return hf_hub_cache_root();
}

std::string repo_type_plural(RepoType type) {
  return type == RepoType::kernel ? "kernels" : "models";
}

RepoCache::RepoCache(fs::path root, RepoType type, std::string repo_id)
    : root_(std::move(root)), type_(type), repo_id_(std::move(repo_id)) {}

std::string RepoCache::folder_name() const {
  std::string name = repo_type_plural(type_);
  for (const auto& part : util::split(repo_id_, '/')) name += "--" + part;
  return name;
}

fs::path RepoCache::blob_path(const std::string& etag) const { return repo_dir() / "blobs" / etag; }

fs::path RepoCache::snapshot_dir(const std::string& commit) const {
  return repo_dir() / "snapshots" / commit;
}

fs::path RepoCache::ref_path(const std::string& revision) const {
  return repo_dir() / "refs" / fs::path(revision);
}

fs::path RepoCache::no_exist_dir(const std::string& commit) const { return repo_dir() / ".no_exist" / commit; }

fs::path RepoCache::no_exist_path(const std::string& commit, const std::string& path_in_repo) const {
  return no_exist_dir(commit) / fs::path(path_in_repo);
}

fs::path RepoCache::lock_path(const std::string& name) const {
  return root_ / ".locks" / folder_name() / (name + ".lock");
}

fs::path RepoCache::receipt_path(const std::string& commit, const std::string& variant) const {
  // Outside the repo folder (dot-directories are skipped by huggingface_hub's cache scanner).
  return root_ / ".kernels-receipts" / folder_name() / commit / (variant + ".json");
}

std::optional<std::string> RepoCache::read_ref(const std::string& revision) const {
  auto text = util::read_file(ref_path(revision));
  if (!text) return std::nullopt;
  std::string commit(util::trim(*text));
  if (commit.empty()) return std::nullopt;
  return commit;
}

util::Status RepoCache::write_ref(const std::string& revision, const std::string& commit) const {
  if (read_ref(revision) == commit) return {};
  KB_TRY(check_inside(root_, ref_path(revision)));
  std::error_code ec;
  fs::create_directories(ref_path(revision).parent_path(), ec);
  return util::write_file_atomic(ref_path(revision), commit);
}

std::optional<std::string> RepoCache::find_snapshot(const std::string& revision) const {
  std::error_code ec;
  if (is_commit_hash(revision) && fs::is_directory(snapshot_dir(revision), ec)) return revision;
  auto commit = read_ref(revision);
  if (commit && fs::is_directory(snapshot_dir(*commit), ec)) return commit;
  return std::nullopt;
}

std::vector<std::pair<int, std::string>> RepoCache::cached_versions() const {
  std::vector<std::pair<int, std::string>> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(repo_dir() / "refs", ec)) {
    auto n = hub::protocol::parse_version_branch(entry.path().filename().string());
    if (!n) continue;
    if (auto commit = read_ref(entry.path().filename().string())) out.emplace_back(*n, *commit);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool is_commit_hash(const std::string& revision) {
  return revision.size() == 40 &&
         std::all_of(revision.begin(), revision.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
}

}  // namespace kb::loader
