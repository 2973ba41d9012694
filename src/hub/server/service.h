// The Hub service: request routing (by raw, still-encoded path segments, because revisions and
// paths may contain encoded '/'), authentication and authorization, and the endpoint handlers
// of docs/hub-api.md plus our bulk download. Handlers live in read_routes.cpp and
// write_routes.cpp; this class owns the shared state.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hub/server/http_message.h"
#include <nlohmann/json.hpp>

#include "hub/storage/accounts.h"
#include "hub/storage/benchmark_store.h"
#include "hub/storage/repo_store.h"
#include "hub/storage/usage.h"
#include "hub/server/post_limits.h"
#include "hub/server/xet_tokens.h"

namespace kb::hub::server {

// Limits of what one request or user may store (docs/hub-security.md); `kernel-hub serve` flags.
struct HubLimits {
  uint64_t max_file_size = uint64_t{10} << 30;     // one file (LFS object or inline content)
  uint64_t max_request_body = uint64_t{64} << 20;  // any non-upload request body
  size_t max_files_per_commit = 10000;             // operations in one commit
  uint64_t quota = uint64_t{100} << 30;            // bytes of what one user stored (objects, records); 0: none
  size_t max_discussions_per_hour = 30;            // discussions and pull requests one user opens; 0: none
  size_t max_benchmark_runs_per_hour = 60;         // benchmark runs one user posts; 0: none
};

// What the server's own bookkeeping of one charged record costs (its ledger line, its owned-set
// or index lines), charged with the record's bytes.
inline constexpr uint64_t kRecordBookkeeping = 128;

// The largest POST body of `target`: --max-request-body, or for a Xet xorb upload at least the
// Xet limit of a serialized xorb (xet::kMaxXorbSize), which clients fill (xet_routes.cpp).
uint64_t post_body_limit(const HubLimits& limits, const std::string& target);

// The parts of a repository URL that every repo-scoped handler needs.
struct RepoRequest {
  storage::RepoId repo;
  std::vector<std::string> rest;  // raw segments after {type}s/{ns}/{name}
};

class HubService {
 public:
  // Records in `records` (which outlives the service; backend.h), or, without it, the directory
  // back end over `root`. Blobs (file bodies, xorbs) under `root`, or in `blobs` (an object store:
  // downloads are then redirected to it with presigned URLs where it has them).
  HubService(std::filesystem::path root, HubLimits limits, storage::RecordStore* records = nullptr,
             std::shared_ptr<storage::BlobStore> blobs = nullptr);

  // The base of every absolute URL the service returns ("http://hub.example:8000"), from
  // configuration only: the Host header of a request is never used.
  void set_public_url(std::string url) { public_url_ = std::move(url); }
  const std::string& public_url() const { return public_url_; }
  const HubLimits& limits() const { return limits_; }

  void handle_get(const Request& request, Response& response);
  void handle_post(const Request& request, Response& response);
  void handle_put(const Request& request, Response& response,
                  const ContentReader& reader);
  void handle_delete(const Request& request, Response& response);
  // Before a PUT body is received: refuses (replies, returns true) an unknown PUT route or an
  // upload URL whose ticket is unknown, used or of another size, so no such body is spooled.
  bool refuse_put_before_body(const Request& request, Response& response);

 private:
  // read: metadata; download: file contents (refused for gated repositories to non-members);
  // write: members of the namespace.
  enum class Access { read, download, write };
  // Authenticates the caller and checks access to `repo`; replies and returns false on refusal.
  bool authorize(const Request& request, Response& response,
                 const storage::RepoId& repo, Access access, std::optional<storage::User>* caller = nullptr);
  // Resolves the bearer token; replies 401 and returns false for an invalid token.
  bool caller_of(const Request& request, Response& response,
                 std::optional<storage::User>& caller);

  // Read endpoints (read_routes.cpp).
  void whoami(const Request& request, Response& response);
  void organization_overview(const std::string& org, Response& response);
  void capabilities(Response& response);
  void refs(const Request& request, Response& response, const RepoRequest& target);
  void revision_info(const Request& request, Response& response,
                     const RepoRequest& target, const std::string& revision);
  void tree(const Request& request, Response& response, const RepoRequest& target);
  // Every directory id of a commit's tree, computed once per commit (a few commits are kept).
  std::shared_ptr<const std::map<std::string, std::string>> directory_oids_of(const std::string& commit_id,
                                                                              const storage::Commit& commit);
  void resolve(const Request& request, Response& response, const RepoRequest& target);
  void bulk(const Request& request, Response& response, const RepoRequest& target);

  // Write endpoints (write_routes.cpp).
  void create_repo(const Request& request, Response& response);
  void create_branch(const Request& request, Response& response, const RepoRequest& target);
  void preupload(const Request& request, Response& response, const RepoRequest& target);
  void lfs_batch(const Request& request, Response& response, const RepoRequest& target);
  void lfs_upload(const std::string& ticket, const Request& request, Response& response,
                  const ContentReader& reader);
  void lfs_verify(const std::string& ticket, const Request& request, Response& response);
  void commit(const Request& request, Response& response, const RepoRequest& target);

  // Benchmark results (benchmark_routes.cpp, docs/hub-benchmarks.md).
  void benchmarks(const Request& request, Response& response, const RepoRequest& target);
  void post_benchmark(const Request& request, Response& response, const RepoRequest& target);
  // Hide, unhide or delete one run: the repository's owners (members of its namespace) only.
  void moderate_benchmark(const Request& request, Response& response, const RepoRequest& target,
                          const std::string& action);
  // Whether `user` is not a member of `name_space` (as recorded with the run, else as now).
  bool benchmark_outsider(const storage::BenchmarkRecord& record, const std::string& name_space);
  // The HTML pages (page_routes.cpp, docs/hub-pages.md); page() is false when `segments` name none.
  bool page(const Request& request, Response& response, const std::vector<std::string>& segments);
  void index_page(const Request& request, Response& response);
  void repo_page(const Request& request, Response& response, const storage::RepoId& repo);

  // Xet storage (xet_routes.cpp, docs/hub-xet.md).
  void xet_token(const Request& request, Response& response, const RepoRequest& target,
                 XetScope scope);
  void xet_cas_get(const Request& request, Response& response, const std::vector<std::string>& rest);
  void xet_cas_post(const Request& request, Response& response, const std::vector<std::string>& rest);
  void xet_upload_xorb(const Request& request, Response& response, const std::string& hash);
  void xet_upload_shard(const Request& request, Response& response);
  void xet_dedup(const Request& request, Response& response, const std::string& chunk);
  void xet_reconstruction(const Request& request, Response& response, const std::string& file_id,
                          int version);
  void xet_xorb_data(const Request& request, Response& response, const std::string& xorb);
  // The CAS caller's grant (replies 401/403 and returns nothing on refusal).
  std::optional<XetGrant> xet_grant(const Request& request, Response& response, XetScope needed);
  std::optional<storage::User> grant_caller(const XetGrant& grant);
  bool xet_access_holds(const std::string& user, const storage::RepoId& repo, XetScope scope, bool pull_request);
  bool reachable_xet_file(const XetGrant& grant, const storage::XetFile& file);
  const XetCredentials* xet_credentials(Response& response);
  // The Xet form of an LFS entry (made from its stored body when `import`), for resolve.
  std::optional<storage::XetFile> xet_file_of(const storage::TreeEntry& entry, bool import);
  void xet_resolve_headers(const Request& request, Response& response, const RepoRequest& target,
                           const std::string& commit, const storage::TreeEntry& entry);
  void serve_xet_content(Response& response, const std::string& path, const storage::TreeEntry& entry);
  void serve_object_bytes(Response& response, const storage::TreeEntry& entry, uint64_t stored_size);
  // How long a presigned object-store URL handed to a client stays valid (resolve's redirect,
  // the xorb URLs of a Xet reconstruction): long enough to start and finish a download.
  static constexpr int64_t kPresignedUrlLifetime = 600;  // seconds
  // Size of the content with this SHA-256, in the object store or in Xet storage.
  std::optional<uint64_t> stored_content_size(const std::string& sha256);

  // Repository management (manage_routes.cpp): card validation, deletion, tags, settings.
  void validate_yaml(const Request& request, Response& response);
  void delete_repo(const Request& request, Response& response);
  void delete_branch(const Request& request, Response& response, const RepoRequest& target);
  void create_tag(const Request& request, Response& response, const RepoRequest& target);
  void delete_tag(const Request& request, Response& response, const RepoRequest& target);
  void update_settings(const Request& request, Response& response, const RepoRequest& target,
                       const ContentReader& reader);
  // History and community (history_routes.cpp): commit listing, paths-info, discussions.
  void commits(const Request& request, Response& response, const RepoRequest& target);
  void paths_info(const Request& request, Response& response, const RepoRequest& target);
  void list_discussions(const Request& request, Response& response, const RepoRequest& target);
  void discussion_details(const Request& request, Response& response, const RepoRequest& target);
  void create_discussion(const Request& request, Response& response, const RepoRequest& target);
  // Write access to `revision` (docs/hub-security.md, "Pull requests"): members write anywhere;
  // any signed-in reader may open a pull request (`create_pr`) and write to the refs/pr/<n> it
  // authored. Replies and returns false on refusal.
  bool authorize_revision(const Request& request, Response& response, const storage::RepoId& repo,
                          const std::string& revision, bool create_pr, std::optional<storage::User>& caller);

  // The ChargeRecord of `user` (repo_store.h): each record costs its bytes plus kRecordBookkeeping,
  // charged within --quota; beyond it, storage::quota_exceeded naming the user and the quota.
  storage::ChargeRecord charge_to(const std::string& user);

  // The caller may read `repo` (it exists, and is public or the caller is a member).
  bool can_read(const std::optional<storage::User>& caller, const storage::RepoId& repo);
  // `repo` owns the object, or a repository the caller can read does (docs/hub-security.md).
  bool reachable_object(const std::optional<storage::User>& caller, const storage::RepoId& repo,
                        const std::string& sha256);

  // An LFS upload permission handed out by lfs_batch: the PUT href carries a random ticket
  // instead of the user's token (clients do not send tokens to upload URLs). A ticket admits
  // one body of exactly `size` bytes hashing to `sha256`, for `repo`, charged to `user`.
  struct UploadTicket {
    std::string sha256;
    uint64_t size = 0;
    storage::RepoId repo;
    std::string user;
    std::chrono::steady_clock::time_point expires{};
    bool in_use = false;    // a PUT is being read
    bool uploaded = false;  // its body was stored; only verify remains
    bool member = false;    // issued to a member (write access); else to a reader for a pull request
  };
  std::string issue_ticket(UploadTicket ticket);
  // For a PUT: the ticket if it is valid, unused and not in use (then marked in use).
  std::optional<UploadTicket> claim_ticket(const std::string& ticket);
  void release_ticket(const std::string& ticket);  // the PUT failed: may be retried
  // A ticket's record (expiry in unix seconds), and the ticket and expiry a record holds.
  static std::string ticket_text(const UploadTicket& ticket, int64_t expires);
  static std::optional<std::pair<UploadTicket, int64_t>> parse_ticket(const std::string& text);
  // Tickets as records of a shared store (replicas): read (nullopt when unknown or expired), and
  // changed under the ticket's lock.
  std::optional<std::pair<UploadTicket, int64_t>> read_shared_ticket(const std::string& id);
  std::optional<UploadTicket> update_shared_ticket(const std::string& id,
                                                  const std::function<bool(UploadTicket&)>& change);
  void finish_ticket(const std::string& ticket);   // the PUT succeeded: verify only
  std::optional<UploadTicket> find_ticket(const std::string& ticket);

  HubLimits limits_;
  std::string public_url_;
  std::unique_ptr<storage::RecordStore> owned_records_;  // the directory back end, without `records`
  storage::RecordStore& records_;
  storage::RepoStore store_;
  storage::Accounts accounts_;
  storage::UsageLedger usage_;
  storage::BenchmarkStore benchmarks_;
  std::mutex xet_guard_;
  std::optional<XetCredentials> xet_credentials_;
  std::set<std::string> xet_imports_;  // SHA-256s of LFS bodies being converted to Xet form
  static constexpr size_t kDirectoryOidCommits = 16;
  std::mutex directory_oids_guard_;
  std::map<std::string, std::shared_ptr<const std::map<std::string, std::string>>> directory_oids_;
  HourlyLimit discussion_posts_{limits_.max_discussions_per_hour};
  HourlyLimit benchmark_posts_{limits_.max_benchmark_runs_per_hour};
  std::mutex tickets_guard_;
  std::map<std::string, UploadTicket> tickets_;
};

// The tree listing's JSON entry of a file (also paths-info's; `xet_hash` when the content has a
// Xet form), and the stable id of a directory: sha1 over the (path, oid) pairs beneath it.
nlohmann::json tree_file_entry(const std::string& path, const storage::TreeEntry& entry,
                               const std::optional<std::string>& xet_hash);
std::string tree_directory_oid(const storage::Commit& commit, const std::string& dir);

// "{a}/{b}/.../" joined from raw segments [first, end), each percent-decoded.
std::string decoded_path(const std::vector<std::string>& segments, size_t first);
// Splits "rev/path..." raw segments: a revision is one encoded segment, or the unencoded forms
// refs/pr/<n> and refs/heads/<b>. Returns the revision and the index of the first path segment.
std::pair<std::string, size_t> split_revision(const std::vector<std::string>& segments, size_t first);

}  // namespace kb::hub::server
