// Which repositories own which stored objects (docs/hub-security.md, "Objects are scoped").
// Bodies are stored once on disk for the whole Hub, but a commit may reference an object only
// through a repository that owns it: one it was uploaded for, or one whose commits reference it.
// Each repository keeps its set in <repo dir>/owned (one "<sha256>\n" line per object, appended
// and fsynced); a repository without the file (created before owned sets existed) gets it from
// its commits when first opened. The reverse index (object -> repositories) lives in memory and
// is built by one scan of the root when first needed.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "util/result.h"

namespace kb::hub::storage {

class Ownership {
 public:
  // `repos_root`: <root>/repos, holding <type>s/<namespace>/<name>/ directories.
  explicit Ownership(std::filesystem::path repos_root);

  // Repository keys are "<type>s/<namespace>/<name>" (the path under repos_root).
  bool owns(const std::string& repo_key, const std::string& sha256);
  std::vector<std::string> owners(const std::string& sha256);
  // Adds objects to a repository's set (no-op for those it already owns).
  util::Status add(const std::string& repo_key, const std::vector<std::string>& sha256s);
  // Forgets a deleted repository (its directory is already gone) and returns the objects that
  // no repository owns any more, checked against every repository's owned file on disk, so an
  // object another server process added an owner for is never returned.
  std::vector<std::string> remove_repo(const std::string& repo_key);

 private:
  void load_locked();
  std::set<std::string> load_repo(const std::filesystem::path& dir);

  std::filesystem::path repos_root_;
  std::mutex guard_;
  bool loaded_ = false;
  std::map<std::string, std::set<std::string>> owners_;  // sha256 -> repo keys
};

}  // namespace kb::hub::storage
