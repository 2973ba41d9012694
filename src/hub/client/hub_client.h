// The Hub client API used by `upload` and the loader: repositories, refs, branches, trees,
// revision info, file metadata and downloads (parallel; bulk when the server offers it),
// pre-upload, LFS uploads and commits. Works against huggingface.co and kernel-hub alike.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "hub/client/http_client.h"

namespace kb::hub::client {

struct RepoRef {
  std::string type = "kernel";  // "kernel" or "model"
  std::string id;               // "org/name"
  std::string api_segment() const { return type == "kernel" ? "kernels" : "models"; }
  std::string web_prefix() const { return type == "kernel" ? "kernels/" : ""; }
};

struct WhoAmI {
  std::string name;
  std::vector<std::string> orgs;
};

struct GitRef {
  std::string name;    // "main", "v1", or the PR number
  std::string ref;     // "refs/heads/main", "refs/pr/3"
  std::string commit;
};

struct RepoRefs {
  std::vector<GitRef> branches;
  std::vector<GitRef> pull_requests;
};

struct TreeItem {
  bool is_directory = false;
  std::string path;
  std::string oid;          // git oid
  uint64_t size = 0;
  std::optional<std::string> lfs_sha256;
};

struct RevisionInfo {
  std::string sha;
  bool is_private = false;
  std::vector<std::string> siblings;
};

struct FileMetadata {
  std::string commit;  // X-Repo-Commit
  std::string etag;    // normalised (no W/, no quotes)
  uint64_t size = 0;
};

struct PreuploadFile {
  std::string path;
  uint64_t size = 0;
  std::string sample;  // first 512 bytes (raw)
};

struct PreuploadAnswer {
  std::string path;
  bool lfs = false;
  bool should_ignore = false;
  std::optional<std::string> remote_oid;
};

struct LfsObject {
  std::string sha256;
  uint64_t size = 0;
  std::filesystem::path local_path;
};

enum class CommitOperationKind { add_regular, add_lfs, delete_file, delete_folder };

struct CommitOperation {
  CommitOperationKind kind = CommitOperationKind::add_regular;
  std::string path_in_repo;
  std::filesystem::path local_path;  // add_regular: content read at commit time
  std::string sha256;                // add_lfs
  uint64_t size = 0;                 // add_lfs
};

struct CommitResponse {
  std::string commit;
  std::optional<std::string> pull_request_url;
  std::optional<int> pull_request_number;
};

class HubClient {
 public:
  explicit HubClient(HubSettings settings, RetryPolicy policy = {});

  const HubSettings& settings() const { return http_.settings(); }
  HttpClient& http() { return http_; }

  util::Result<WhoAmI> whoami();
  // Returns the repo URL. Exists -> the URL (exist-ok). 403 -> ErrorKind::permission.
  util::Result<std::string> create_repo(const RepoRef& repo, bool is_private);
  util::Result<RepoRefs> list_refs(const RepoRef& repo, bool include_prs);
  util::Status create_branch(const RepoRef& repo, const std::string& branch,
                             const std::optional<std::string>& starting_point = std::nullopt);
  util::Result<std::vector<TreeItem>> list_tree(const RepoRef& repo, const std::string& revision,
                                                const std::string& path, bool recursive);
  util::Result<RevisionInfo> revision_info(const RepoRef& repo, const std::string& revision);

  // HEAD of a file; a missing file is ErrorKind::not_found.
  util::Result<FileMetadata> file_metadata(const RepoRef& repo, const std::string& revision, const std::string& path);
  util::Result<FileMetadata> download_file(const RepoRef& repo, const std::string& revision, const std::string& path,
                                           const std::filesystem::path& destination,
                                           const ProgressCallback& progress = {});
  // Downloads every file under `directory` (repo path) at `revision` to destination_root/<repo path>,
  // in one bulk request when the server supports it, else with `parallelism` parallel GETs.
  // Returns the repo paths written.
  util::Result<std::vector<std::string>> download_directory(const RepoRef& repo, const std::string& revision,
                                                            const std::string& directory,
                                                            const std::filesystem::path& destination_root,
                                                            int parallelism = 8, const ProgressCallback& progress = {});
  // Whether the server offers the kernel-hub bulk endpoint (probed once, then cached).
  bool supports_bulk();
  util::Result<std::vector<std::string>> bulk_download(const RepoRef& repo, const std::string& revision,
                                                       const std::string& directory,
                                                       const std::filesystem::path& destination_root);

  util::Result<std::vector<PreuploadAnswer>> preupload(const RepoRef& repo, const std::string& revision,
                                                       const std::vector<PreuploadFile>& files, bool create_pr);
  // Uploads the objects the server does not have yet (LFS batch, basic transfer), in parallel.
  util::Status upload_lfs(const RepoRef& repo, const std::string& revision, const std::vector<LfsObject>& objects,
                          int parallelism = 4, const ProgressCallback& progress = {});
  util::Result<CommitResponse> commit(const RepoRef& repo, const std::string& revision,
                                      const std::vector<CommitOperation>& operations, const std::string& summary,
                                      bool create_pr, const std::optional<std::string>& parent_commit = std::nullopt);

  std::string resolve_url(const RepoRef& repo, const std::string& revision, const std::string& path) const;
  std::string api_url(const RepoRef& repo, const std::string& suffix) const;

 private:
  HttpClient http_;
  std::mutex bulk_guard_;
  std::optional<bool> bulk_supported_;
};

// URL-encodes a revision with no safe characters (refs/pr/3 -> refs%2Fpr%2F3).
std::string encode_revision(const std::string& revision);
// URL-encodes a path keeping '/'.
std::string encode_path(const std::string& path);

// Runs `count` jobs on up to `parallelism` threads; returns the first error.
util::Status run_parallel(size_t count, int parallelism, const std::function<util::Status(size_t)>& job);

}  // namespace kb::hub::client
