// The Hub read operations the loader needs (docs/hub-api.md), as an interface so the installer's
// orchestration (cache, verification, request budget) is independent of the HTTP client.
// `http_hub_reader.cpp` adapts the shared libcurl client of src/hub/.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loader/cache_layout.h"
#include "util/result.h"

namespace kb::loader {

struct Branch {
  std::string name;
  std::string commit;
};

struct TreeEntry {
  bool is_directory = false;
  std::string path;
  std::string oid;                   // git blob / tree sha1
  uint64_t size = 0;
  std::optional<std::string> lfs_sha256;
  // What the cache names the blob by (the normalised ETag): sha256 for LFS, else the blob sha1.
  std::string etag() const { return lfs_sha256 ? *lfs_sha256 : oid; }
};

// Result of fetching one file.
struct FetchedFile {
  std::string commit;  // X-Repo-Commit
  std::string etag;    // normalised ETag
  uint64_t size = 0;
};

// A file of a bulk (whole-directory) download, already written to disk.
struct BulkFile {
  std::string path;        // repo path
  std::filesystem::path local;
};

// A Hub's "not found" answers are util::Error kind not_found with the Hub's error code in `code`
// (hub/protocol/error_codes.h: RepoNotFound, RevisionNotFound, EntryNotFound).

class HubReader {
 public:
  virtual ~HubReader() = default;
  virtual util::Result<std::vector<Branch>> list_branches(RepoType type, const std::string& repo) = 0;
  virtual util::Result<std::string> revision_sha(RepoType type, const std::string& repo,
                                                 const std::string& revision) = 0;
  virtual util::Result<std::vector<TreeEntry>> list_tree(RepoType type, const std::string& repo,
                                                         const std::string& revision,
                                                         const std::string& path, bool recursive) = 0;
  // GET `path` at `revision` into `dest` (resuming a partial `dest` with Range when possible).
  virtual util::Result<FetchedFile> download(RepoType type, const std::string& repo,
                                             const std::string& revision, const std::string& path,
                                             const std::filesystem::path& dest) = 0;
  // Whether the file exists (HEAD); not-found errors are returned as errors.
  virtual util::Result<FetchedFile> head(RepoType type, const std::string& repo,
                                         const std::string& revision, const std::string& path) = 0;
  // `trustedKernelPublisher` of the organisation overview.
  virtual util::Result<bool> trusted_publisher(const std::string& org) = 0;
  // Whole-directory download when the server advertises it; nullopt when it does not.
  virtual std::optional<util::Result<std::vector<BulkFile>>> download_directory(
      RepoType type, const std::string& repo, const std::string& commit, const std::string& path,
      const std::filesystem::path& dest_dir) = 0;
};

struct HubOptions {
  std::string user_agent;
};

// The HTTP implementation (HF_ENDPOINT, HF_TOKEN) on top of src/hub's client.
std::unique_ptr<HubReader> make_http_hub_reader(const HubOptions& options);

}  // namespace kb::loader
