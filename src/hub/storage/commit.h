// Immutable commit objects of the Hub server. A commit holds the whole tree (path -> entry), so
// reading any revision needs exactly one file; its id is the SHA-1 of its canonical JSON bytes,
// which makes commits self-verifying and naturally deduplicated.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "util/result.h"

namespace kb::hub::storage {

struct TreeEntry {
  std::string oid;      // git blob sha1 (of the LFS pointer for LFS files)
  std::string sha256;   // content key in the object store
  uint64_t size = 0;    // content size (the real file, also for LFS)
  bool lfs = false;
};

struct Commit {
  std::string parent;                      // empty for the first commit
  std::map<std::string, TreeEntry> tree;   // sorted by path (byte order)
  std::string message;
  std::string time;                        // ISO-8601 UTC
  std::string author;                      // user name; empty for commits the server made
};

inline constexpr int kCommitFormatVersion = 1;

// Canonical bytes: JSON with sorted keys, no whitespace.
std::string serialize_commit(const Commit& commit);
util::Result<Commit> parse_commit(std::string_view bytes);
// 40-hex SHA-1 of the canonical bytes.
std::string commit_id(std::string_view canonical_bytes);

// The git LFS pointer text of a file with this content digest and size.
std::string lfs_pointer(const std::string& sha256, uint64_t size);

// "2024-05-01T12:00:00.000Z" for now.
std::string now_iso8601();

}  // namespace kb::hub::storage
