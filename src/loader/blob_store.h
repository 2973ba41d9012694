// Writing into the huggingface_hub cache safely: a blob only ever appears under its final name
// after its content matched its name (sha256 for LFS blobs, git blob sha1 otherwise), and a
// snapshot entry is a relative symlink created atomically after the blob is complete. A crash
// (kill -9) at any point leaves at most an `.incomplete` file, which nothing trusts.
#pragma once

#include <filesystem>
#include <string>

#include "loader/cache_layout.h"
#include "util/result.h"

namespace kb::loader {

// Whether `content_path` hashes to `etag` (64 hex: sha256; 40 hex: git blob sha1).
util::Result<bool> content_matches_etag(const std::filesystem::path& content_path, const std::string& etag);

// Moves a fully downloaded `.incomplete` file to `blobs/<etag>` after checking its content.
util::Status commit_blob(const RepoCache& cache, const std::filesystem::path& incomplete,
                         const std::string& etag);

// `snapshots/<commit>/<path>` → relative symlink to `blobs/<etag>` (replacing what was there).
util::Status link_snapshot(const RepoCache& cache, const std::string& commit, const std::string& path,
                           const std::string& etag);

// Removes a snapshot entry and, if nothing else is known to need it, its blob (corruption repair).
void forget_file(const RepoCache& cache, const std::string& commit, const std::string& path);

// Empty `.no_exist/<commit>/<path>` marker.
void mark_missing(const RepoCache& cache, const std::string& commit, const std::string& path);

}  // namespace kb::loader
