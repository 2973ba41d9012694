// The huggingface_hub cache layout (docs/hub-api.md) for one repository: where refs, blobs,
// snapshots, `.no_exist` markers and download locks live, and the cache-root lookup from the
// environment. Shared with huggingface_hub and upstream `kernels`, so names are a wire format.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace kb::loader {

namespace fs = std::filesystem;

// `KERNELS_CACHE`, else `HF_HUB_CACHE`, else `$HF_HOME/hub`, else
// `$XDG_CACHE_HOME/huggingface/hub`, else `~/.cache/huggingface/hub`.
fs::path default_cache_root();
// The same without `KERNELS_CACHE` (the huggingface_hub default).
fs::path hf_hub_cache_root();

enum class RepoType { kernel, model };

std::string repo_type_plural(RepoType type);  // "kernels" / "models"

class RepoCache {
 public:
  RepoCache(fs::path root, RepoType type, std::string repo_id);

  const fs::path& root() const { return root_; }
  const std::string& repo_id() const { return repo_id_; }
  RepoType type() const { return type_; }

  // `kernels--org--name` (or `models--…`).
  std::string folder_name() const;
  fs::path repo_dir() const { return root_ / folder_name(); }
  fs::path blob_path(const std::string& etag) const;
  fs::path snapshot_dir(const std::string& commit) const;
  fs::path ref_path(const std::string& revision) const;
  fs::path no_exist_dir(const std::string& commit) const;  // `.no_exist/<commit>`
  fs::path no_exist_path(const std::string& commit, const std::string& path_in_repo) const;
  fs::path lock_path(const std::string& name) const;  // `.locks/<folder>/<name>.lock`
  fs::path receipt_path(const std::string& commit, const std::string& variant) const;

  std::optional<std::string> read_ref(const std::string& revision) const;
  // Writes `refs/<revision>` atomically; a no-op when it already holds `commit`.
  util::Status write_ref(const std::string& revision, const std::string& commit) const;
  // Offline revision lookup: a 40-hex revision names its snapshot directly, anything else goes
  // through `refs/<revision>`. Returns the commit whose snapshot directory exists.
  std::optional<std::string> find_snapshot(const std::string& revision) const;
  // Versions N with a `refs/v<N>` file, ascending, with their commits.
  std::vector<std::pair<int, std::string>> cached_versions() const;

 private:
  fs::path root_;
  RepoType type_;
  std::string repo_id_;
};

bool is_commit_hash(const std::string& revision);  // 40 lower/upper hex digits

}  // namespace kb::loader
