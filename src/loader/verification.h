// Verifying a variant snapshot before it is imported: against the metadata.json digest when it
// has one, else each file against the blob name it links to (sha256 / git blob sha1), and
// against the lock hash when the load is locked.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "loader/cache_layout.h"
#include "metadata/metadata.h"
#include "util/result.h"

namespace kb::loader {

// Whether a path of a variant (relative to its directory) is Python bytecode (`*.pyc`, anything under
// `__pycache__/`), which importing the variant writes: it is neither verified nor part of the
// loaded variant's receipt.
bool python_bytecode(const std::string& relative);

// Files of the variant (relative to the variant directory) whose content does not match the
// blob they point to. Plain copies (no symlink) are not checked here.
std::vector<std::string> corrupted_blobs(const RepoCache& cache, const std::string& commit,
                                         const std::string& variant);

// The `git_lfs_concat` lock hash of the cached variant (etags taken from the blob names).
util::Result<std::string> snapshot_lock_hash(const RepoCache& cache, const std::string& commit,
                                             const std::string& variant);

util::Status verify_snapshot(const RepoCache& cache, const std::string& commit, const std::string& variant,
                             const metadata::Metadata& metadata, const std::optional<std::string>& lock_hash);

}  // namespace kb::loader
