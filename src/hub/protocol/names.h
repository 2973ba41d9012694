// The names a Hub accepts and hands out, one validator per kind, shared by the kernel-hub
// server (every route) and the loader (every name that comes back from a Hub before it becomes
// a URL or a cache path). The rules are the official client's for repo ids, git's
// (check-ref-format) for branch and tag names, and docs/hub-security.md's for file paths.
// Each check returns an ErrorKind::invalid error whose message names the value and the rule.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kb::hub::protocol {

inline constexpr size_t kMaxRepoNamePart = 96;     // namespace or name (huggingface_hub)
inline constexpr size_t kMaxRefName = 255;         // branch or tag, whole name
inline constexpr size_t kMaxPathComponent = 255;   // one '/'-separated part of a file path
inline constexpr size_t kMaxPath = 4096;           // a whole file path

// A name as an error message may show it: control characters as '?', at most 120 bytes then
// "...". Every message quoting a name from a peer goes through this.
std::string printable(std::string_view value);

// One part of a repo id (namespace or name): 1-96 of [A-Za-z0-9_.-], starting and ending with a
// letter, digit or '_', without "--" or "..", and a name not ending in ".git".
util::Status check_repo_name(std::string_view part);
// "namespace/name", both parts as above.
util::Status check_repo_id(std::string_view repo_id);

// A branch or tag name as `git check-ref-format --branch` accepts it: no component starting
// with '.' or ending in ".lock", no "..", "//", "@{", no leading/trailing '/', no trailing '.',
// no control character, space, '~', '^', ':', '?', '*', '[' or '\', not "@", not "HEAD", not
// starting with '-' or "refs/" (those are the Hub's own namespaces), at most 255 bytes.
util::Status check_ref_name(std::string_view name);

// A revision a client may ask for: a ref name (above), refs/heads/<ref>, refs/pr/<n> (n a
// positive decimal) or a 40-hex commit id.
util::Status check_revision(std::string_view revision);

// A file path inside a repository: relative, '/'-separated, valid UTF-8; no empty, '.' or '..'
// component, no ".git" component (any case), no backslash, no control character, no
// percent-encoded '.', '/' or '\' ("%2e", "%2f", "%5c", any case), each component at most 255
// bytes, the whole at most 4096 bytes.
util::Status check_repo_path(std::string_view path);

// A folder prefix ("build/torch-cpu") for directory requests: a repo path, or empty (the root).
util::Status check_repo_folder(std::string_view folder);

// Within one set of paths, no path is also a folder of another ("a" and "a/b"). `paths` need
// not be sorted. The error names both paths.
util::Status check_no_file_folder_clash(std::vector<std::string> paths);

// The branch of kernel version `version`: `v<N>` (what `upload` pushes to, `version=N` loads).
std::string version_branch(int64_t version);
// N of a `v<N>` branch name (1 to 9 decimal digits); nullopt for any other name.
std::optional<int> parse_version_branch(std::string_view name);

}  // namespace kb::hub::protocol
