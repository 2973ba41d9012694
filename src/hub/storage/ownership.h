// Which repositories own which stored objects (docs/hub-security.md, "Objects are scoped").
// Bodies are stored once on disk for the whole Hub, but a commit may reference an object only
// through a repository that owns it: one it was uploaded for, or one whose commits reference it.
// Each repository keeps its set in the record repos/<type>s/<ns>/<name>/owned (one "<sha256>\n"
// line per object, appended durably); a repository without it (created before owned sets existed)
// gets it from its commits when first opened. The reverse index (object -> repositories) lives in
// memory and is built by one scan of the records when first needed; over a shared record store
// (replicas) another process may add owners at any time, so `owns` reads the repository's set and
// `owners` and `remove_repo` rescan instead of trusting the index.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "hub/storage/backend.h"
#include "util/result.h"

namespace kb::hub::storage {

class Ownership {
 public:
  // Records under repos/<type>s/<namespace>/<name>/ of `records` (which outlives this).
  explicit Ownership(RecordStore& records);

  // Repository keys are "<type>s/<namespace>/<name>" (the path under repos_root).
  bool owns(const std::string& repo_key, const std::string& sha256);
  std::vector<std::string> owners(const std::string& sha256);
  // Adds objects to a repository's set (no-op for those it already owns).
  util::Status add(const std::string& repo_key, const std::vector<std::string>& sha256s);
  // Forgets a deleted repository (its records are already gone) and returns the objects that
  // no repository owns any more, checked against every repository's owned record, so an
  // object another server process added an owner for is never returned.
  // `owned`: the repository's set as it was before its records went (owned_by); required over a
  // shared store, whose in-memory index cannot be trusted.
  std::vector<std::string> remove_repo(const std::string& repo_key, const std::set<std::string>& owned = {});
  // The objects a repository owns now, from its record.
  std::set<std::string> owned_by(const std::string& repo_key);

 private:
  void load_locked();
  std::set<std::string> load_repo(const std::string& repo_key);
  // Calls `visit(key)` for every repository (key "<type>s/<namespace>/<name>" with a repo.json).
  void for_each_repository(const std::function<void(const std::string&)>& visit);

  RecordStore& records_;
  std::mutex guard_;
  bool loaded_ = false;
  std::map<std::string, std::set<std::string>> owners_;  // sha256 -> repo keys
};

}  // namespace kb::hub::storage
