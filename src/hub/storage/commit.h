// Immutable commit objects of the Hub server. A commit is its whole tree (path -> entry); its id is
// the SHA-1 of its canonical JSON bytes (serialize_commit), which makes commits self-verifying.
// On disk a commit is stored as what changed (docs/hub-security.md, "Storage quota"): a delta
// record names its parent and the entries it sets or removes, and a full snapshot (the canonical
// bytes themselves, format 1) is written only when the deltas since the last snapshot would
// outweigh it or reach kMaxDeltaDepth, so N commits of one small file cost about N small records
// and loading a commit reads at most kMaxDeltaDepth records.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

inline constexpr int kCommitFormatVersion = 1;  // a snapshot: the canonical bytes
inline constexpr int kDeltaFormatVersion = 2;   // a delta record
inline constexpr uint32_t kMaxDeltaDepth = 500;

// What a delta record holds: a commit as the changes from its parent.
struct CommitDelta {
  std::string parent;
  std::map<std::string, TreeEntry> set;  // added or changed entries
  std::vector<std::string> removed;      // paths of the parent's tree that are gone
  std::string message;
  std::string time;
  std::string author;
  uint32_t depth = 1;             // records since the last snapshot, this one included
  uint64_t bytes_since_snapshot = 0;  // bytes of those records
};

// A commit record as stored: a snapshot (the whole commit) or a delta.
struct CommitRecord {
  bool snapshot = true;
  Commit commit;      // snapshot: the commit; delta: parent, message, time, author (no tree)
  CommitDelta delta;  // delta only
};

// Canonical bytes: JSON with sorted keys, no whitespace.
std::string serialize_commit(const Commit& commit);
util::Result<Commit> parse_commit(std::string_view bytes);
// The changes from `parent`'s tree to `next` (parent, message, time and author from `next`).
CommitDelta diff_commits(const std::map<std::string, TreeEntry>& parent, const Commit& next);
// `parent` with the delta applied.
Commit apply_delta(const Commit& parent, const CommitDelta& delta);
std::string serialize_delta(const CommitDelta& delta);
// Either format, told apart by format_version.
util::Result<CommitRecord> parse_commit_record(std::string_view bytes);

// 40-hex SHA-1 of the canonical bytes.
std::string commit_id(std::string_view canonical_bytes);

// The git LFS pointer text of a file with this content digest and size.
std::string lfs_pointer(const std::string& sha256, uint64_t size);

// "2024-05-01T12:00:00.000Z" for now.
std::string now_iso8601();

}  // namespace kb::hub::storage
