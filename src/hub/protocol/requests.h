// Request bodies the kernel-hub server accepts (docs/hub-api.md), parsed into typed values before
// any handler acts on them. Every field is checked for its type; a wrong type, a missing
// required field or a bad name is an ErrorKind::invalid error whose message names the field
// ("objects[0].size: expected a non-negative integer below 2^63"), which the server answers
// with 400. The parsers are pure (bytes in, values out), so fuzz/fuzz_hub_requests.cpp runs them
// directly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kb::hub::protocol {

// The ErrorKind::invalid error of a bad field: "<field>: <expected>" (every parser of this module).
util::Error field_error(const std::string& field, const std::string& expected);

// JSON nesting deeper than this is refused (no body of the API nests more than 4 levels).
inline constexpr int kMaxJsonDepth = 32;

// POST /api/repos/create
struct CreateRepoRequest {
  std::string name;                       // as sent: "name" or "namespace/name"
  std::optional<std::string> organization;
  std::string type = "model";
  bool is_private = false;
};
util::Result<CreateRepoRequest> parse_create_repo(std::string_view body);

// POST /api/{type}s/{repo}/branch/{branch}; an empty body is {}.
struct CreateBranchRequest {
  std::optional<std::string> starting_point;
};
util::Result<CreateBranchRequest> parse_create_branch(std::string_view body);

// POST /api/{type}s/{repo}/preupload/{revision}
struct PreuploadFile {
  std::string path;
  uint64_t size = 0;
  std::string sample;  // decoded bytes of the base64 sample (may be empty)
};
util::Result<std::vector<PreuploadFile>> parse_preupload(std::string_view body);

// POST .../info/lfs/objects/batch (operation "upload" only)
struct LfsObject {
  std::string oid;  // 64 lowercase hex digits
  uint64_t size = 0;
};
util::Result<std::vector<LfsObject>> parse_lfs_batch(std::string_view body);
// The revision an LFS batch names in "ref": {"name": ...}; nullopt when absent (huggingface_hub
// sends none for a new pull request).
util::Result<std::optional<std::string>> parse_lfs_batch_ref(std::string_view body);

// POST /api/{type}s/{repo}/commit/{revision}: ndjson, one {"key", "value"} object per line.
enum class CommitOpKind { file, lfs_file, delete_file, delete_folder };
struct CommitOp {
  CommitOpKind kind = CommitOpKind::file;
  std::string path;     // checked with check_repo_path (a deleted folder's trailing '/' removed)
  std::string content;  // file: the decoded bytes
  std::string oid;      // lfs_file: sha256
  uint64_t size = 0;    // lfs_file: declared size
};
struct CommitPayload {
  std::string summary = "Upload files";
  std::string description;
  std::optional<std::string> parent_commit;
  std::vector<CommitOp> operations;
};
util::Result<CommitPayload> parse_commit_payload(std::string_view body);

// DELETE /api/repos/delete
struct DeleteRepoRequest {
  std::string name;  // as sent: "name" or "namespace/name"
  std::optional<std::string> organization;
  std::string type = "model";
};
util::Result<DeleteRepoRequest> parse_delete_repo(std::string_view body);

// POST /api/{type}s/{repo}/tag/{revision}
struct CreateTagRequest {
  std::string tag;
  std::string message;
};
util::Result<CreateTagRequest> parse_create_tag(std::string_view body);

// PUT /api/{type}s/{repo}/settings; absent fields stay as they are.
struct RepoSettingsRequest {
  std::optional<bool> is_private;    // "private": bool, or "visibility": "public" | "private"
  std::optional<std::string> gated;  // "auto", "manual", or "" for false
};
util::Result<RepoSettingsRequest> parse_repo_settings(std::string_view body);

// POST /api/{type}s/{repo}/discussions
struct CreateDiscussionRequest {
  std::string title;
  std::string description;
  bool pull_request = false;
};
util::Result<CreateDiscussionRequest> parse_create_discussion(std::string_view body);

// POST /api/validate-yaml
struct ValidateYamlRequest {
  std::string content;
  std::string repo_type = "model";
};
util::Result<ValidateYamlRequest> parse_validate_yaml(std::string_view body);

// POST /api/{type}s/{repo}/paths-info/{revision}: the JSON form {"paths": [...], "expand": bool}
// (clients also send it form-encoded; the server decodes that into the same value).
struct PathsInfoRequest {
  std::vector<std::string> paths;
  bool expand = false;
};
util::Result<PathsInfoRequest> parse_paths_info(std::string_view body);
// At most this many paths per paths-info request.
inline constexpr size_t kMaxPathsInfoPaths = 1000;

// Sizes are integers in [0, 2^63).
inline constexpr uint64_t kMaxDeclaredSize = (uint64_t{1} << 63) - 1;

}  // namespace kb::hub::protocol
