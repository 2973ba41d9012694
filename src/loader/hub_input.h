// What the loader takes from outside before it becomes a URL or a cache path: repo ids and
// revisions (from the user, a lockfile or a kernel-status.toml redirect), and a Hub's answers
// (commit ids, tree listings, object ids, bulk entry names, metadata.json digest paths). The
// name rules are src/hub/protocol/names.h's; this file adds where a name may point (a listing of
// `build/<variant>` names only paths below it) and the error that names the repository and the
// offending value (kind invalid, a ValueError in Python). docs/hub-security.md, "The loader".
#pragma once

#include <string>
#include <string_view>

#include "metadata/metadata.h"
#include "util/result.h"

namespace kb::loader {

// `repo_id` passes the repo-id rules and `revision` the revision rules.
util::Status check_kernel_request(const std::string& repo_id, const std::string& revision);

// A commit id a Hub answered (`what`: "revision `main`", "branch `v1`"): 40 hex digits.
util::Status check_commit_id(const std::string& repo_id, std::string_view what, const std::string& commit);

// One entry of a listing of `folder` ("" for the whole repository; a bulk response is a
// recursive listing): a valid repo path strictly below `folder/`, exactly one component below it
// when not `recursive`.
util::Status check_listed_path(const std::string& repo_id, const std::string& folder, bool recursive,
                               const std::string& path);

// A blob name a Hub gave for `path` (tree oid, LFS sha256, ETag): 40 or 64 lowercase hex digits.
util::Status check_object_id(const std::string& repo_id, const std::string& path, const std::string& id);

// Every path of the variant's metadata.json digest is a valid repo path (relative to the variant).
util::Status check_digest_paths(const std::string& repo_id, const std::string& variant,
                                const metadata::Digest& digest);

}  // namespace kb::loader
