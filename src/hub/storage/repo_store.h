// Repositories of the Hub server, records (backend.h) under repos/<type>s/<namespace>/<name>/:
//   repo.json      creation record (visibility); its presence is what makes a repo exist
//   refs.json      branches, tags and pull-request refs -> commit id, replaced atomically
//   discussions/<num>.json  one pull request or discussion each (author, title, status), written
//                  once; discussions.json (all in one file) of older roots is still read
//   commits/<id>   immutable commit records: deltas and snapshots (commit.h)
//   lock           the RecordStore lock a writer holds while it updates refs (the directory back end
//                  flocks this file), so two server processes or replicas are safe
//   owned          the objects this repository owns (ownership.h)
// Every writer writes new objects and the commit first and switches the ref last, so a crash
// at any moment leaves each ref at a complete old or new commit (and in the database back end
// the records written under the lock commit together).
// Every record a request adds (repository, commit, ref, discussion) is offered to a ChargeRecord
// before it is written, so that the server charges its bytes to the user's quota or refuses it
// (docs/hub-security.md, "Storage quota").
// Failures are util::Error values from storage_errors.h (status and Hub error code set).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <optional>
#include <string>
#include <vector>

#include "hub/storage/backend.h"
#include "hub/storage/commit.h"
#include "hub/storage/object_store.h"
#include "hub/storage/ownership.h"
#include "hub/storage/storage_errors.h"
#include "hub/storage/xet_store.h"
#include "util/result.h"

namespace kb::hub::storage {

// Asked before a record is written with its ledger key (RepoStore::record_key) and its size in
// bytes; an error (storage_errors.h's quota_exceeded) refuses the write and is returned.
using ChargeRecord = std::function<util::Status(const std::string& key, uint64_t bytes)>;

struct RepoId {
  std::string type;       // "kernel" or "model"
  std::string name_space; // user or organization
  std::string name;
  std::string full() const { return name_space + "/" + name; }
};

struct RepoInfo {
  bool is_private = false;
  std::string created;
  std::string gated;  // "" (not gated), "auto" or "manual"
};

struct Refs {
  std::map<std::string, std::string> branches;  // name -> commit
  std::map<std::string, std::string> tags;      // name -> commit
  std::map<int, std::string> pull_requests;     // number -> commit
};

// A discussion or pull request (refs/pr/<num> for pull requests).
struct Discussion {
  int num = 0;
  bool pull_request = false;
  std::string author;
  std::string title;
  std::string description;
  std::string status;  // "open", "draft", "closed" or "merged"
  std::string created;
  std::string base;    // target branch of a pull request
};

// One commit of a history listing, newest first: its parent, message, time and author (the tree
// is not filled in; load_commit reads it).
struct HistoryEntry {
  std::string id;
  std::shared_ptr<const Commit> commit;
};

enum class OperationKind { add, delete_file, delete_folder };

struct Operation {
  OperationKind kind = OperationKind::add;
  std::string path;
  TreeEntry entry;  // for add
};

struct CommitRequest {
  std::string revision;                 // branch name, refs/heads/<b> or refs/pr/<n>
  std::vector<Operation> operations;
  std::string message;
  std::optional<std::string> parent_commit;
  bool create_pr = false;
  std::string author = {};  // user name recorded in the commit (and as the author of a new pull request)
  ChargeRecord charge = {};  // the commit record and a new pull request's record (none: not charged)
};

struct CommitResult {
  std::string commit;
  std::optional<int> pull_request;
};

class RepoStore {
 public:
  // The directory back end over `root` (records under it), blobs (file bodies, xorbs) under `root`
  // too (DirectoryBlobs) or in `blobs` (an object store).
  explicit RepoStore(std::filesystem::path root, std::shared_ptr<BlobStore> blobs = nullptr);
  // Records in `records` (which outlives the store); blobs under `root` or in `blobs`.
  RepoStore(RecordStore& records, std::filesystem::path root, std::shared_ptr<BlobStore> blobs = nullptr);

  RecordStore& records() { return *records_; }

  ObjectStore& objects() { return objects_; }
  // Contents uploaded through Xet (xet_store.h): a commit may reference them like objects.
  XetStore& xet() { return xet_; }
  const std::filesystem::path& root() const { return root_; }

  // A namespace or repository name (protocol::check_repo_name).
  static bool valid_name(const std::string& name);

  // Objects scoped to repositories (ownership.h); commits add what they reference.
  bool owns(const RepoId& repo, const std::string& sha256) { return ownership_.owns(key(repo), sha256); }
  std::vector<RepoId> owners(const std::string& sha256);
  util::Status add_owned(const RepoId& repo, const std::vector<std::string>& sha256s) {
    return ownership_.add(key(repo), sha256s);
  }

  // The ledger key of a record: a 64-hex digest of its path under the root ("repos/…/commits/<id>").
  static std::string record_key(const std::string& relative_path);
  // The ledger key of a branch's or tag's entry (`name` as create/delete take it).
  static std::string ref_record_key(const RepoId& repo, bool tag, const std::string& name);
  // Bytes a branch or tag named `name` adds to refs.json (its line: indent, quotes, commit id).
  static uint64_t ref_bytes(const std::string& name);

  // `charge` gets the bytes of the new repository's records (repo.json, refs, first commit).
  util::Result<RepoInfo> create_repo(const RepoId& repo, bool is_private, const ChargeRecord& charge = {});
  util::Result<RepoInfo> repo_info(const RepoId& repo) const;
  // Every existing repository of a type ("kernel", "model"), sorted by namespace and name.
  std::vector<RepoId> list_repos(const std::string& type) const;
  util::Result<Refs> refs(const RepoId& repo) const;
  // Branch name, refs/heads/<b>, refs/pr/<n> or a 40-hex commit id -> commit id.
  util::Result<std::string> resolve(const RepoId& repo, const std::string& revision) const;
  util::Result<std::shared_ptr<const Commit>> load_commit(const RepoId& repo, const std::string& id) const;
  // The commit a revision names (resolve, then load_commit), with its id.
  struct RevisionCommit {
    std::string id;
    std::shared_ptr<const Commit> commit;
  };
  util::Result<RevisionCommit> commit_at(const RepoId& repo, const std::string& revision) const;
  // A new branch or tag charges its entry of refs.json (ref_record_key; the server discharges it
  // when the branch or tag is deleted).
  util::Result<std::string> create_branch(const RepoId& repo, const std::string& branch,
                                          const std::string& starting_point, const ChargeRecord& charge = {});
  util::Result<CommitResult> commit(const RepoId& repo, const CommitRequest& request);

  // Administration (repo_refs.cpp, repo_settings.cpp). Deleting `main` is refused (the default branch).
  util::Result<std::string> delete_branch(const RepoId& repo, const std::string& branch);
  util::Result<std::string> create_tag(const RepoId& repo, const std::string& tag, const std::string& revision,
                                       const ChargeRecord& charge = {});
  util::Result<std::string> delete_tag(const RepoId& repo, const std::string& tag);
  // Visibility and gating; nullopt leaves a setting as it is.
  util::Result<RepoInfo> update_settings(const RepoId& repo, std::optional<bool> is_private,
                                    std::optional<std::string> gated);
  // Removes the repository; the objects only it owned are removed from the object store and
  // returned (sha256s) with the ledger keys of its records, so that the caller can release their
  // storage accounting. Objects that another repository owns stay.
  util::Result<std::vector<std::string>> delete_repo(const RepoId& repo);
  // History of `revision` from its head, newest first: entries [skip, skip + limit), and
  // whether more follow.
  util::Result<std::pair<std::vector<HistoryEntry>, bool>> history(const RepoId& repo, const std::string& revision,
                                                              size_t skip, size_t limit) const;
  util::Result<std::vector<Discussion>> discussions(const RepoId& repo) const;
  util::Result<Discussion> discussion(const RepoId& repo, int num) const;
  // A new discussion; a pull request gets refs/pr/<num> at the head of `base`.
  util::Result<Discussion> open_discussion(const RepoId& repo, Discussion discussion, const ChargeRecord& charge = {});

  // Held (shared) by anything that adds an object and its owner, and (exclusive) while
  // delete_repo removes objects that lost their last owner, so neither misses the other.
  std::shared_lock<std::shared_mutex> object_guard() { return std::shared_lock<std::shared_mutex>(gc_guard_); }

 private:
  static std::string key(const RepoId& repo) { return repo.type + "s/" + repo.name_space + "/" + repo.name; }
  // The repository's write lock (RecordStore::lock of its "lock").
  util::Result<std::unique_ptr<RecordLock>> lock_repo(const RepoId& repo);
  // A loaded commit and where its record stands in its delta chain (commit.h).
  struct CachedCommit {
    std::shared_ptr<const Commit> commit;
    uint32_t depth = 0;                 // 0: a snapshot
    uint64_t bytes_since_snapshot = 0;  // bytes of the delta records since the snapshot
  };
  util::Result<CachedCommit> load_cached(const RepoId& repo, const std::string& id) const;
  util::Result<CommitRecord> read_record(const RepoId& repo, const std::string& id) const;
  // Writes `commit` as a delta from `parent` (nullptr for none) or a snapshot, charged first.
  util::Result<std::string> write_commit(const RepoId& repo, const Commit& commit, const CachedCommit* parent,
                                         const ChargeRecord& charge);
  std::string relative(const RepoId& repo, const std::string& path) const {
    return "repos/" + key(repo) + "/" + path;
  }
  util::Status write_discussion(const RepoId& repo, const Discussion& discussion, const std::string& key,
                                const ChargeRecord& charge);
  util::Result<Refs> read_refs(const RepoId& repo) const;
  util::Status write_refs(const RepoId& repo, const Refs& refs);
  // Runs `edit(refs)` on the refs of `repo` (an error if it does not exist), read under the
  // repository's write lock, which is held until `edit` returns and then released (committing what
  // `edit` wrote); returns what `edit` returns, or the failure to commit.
  template <typename Edit>
  auto edit_refs(const RepoId& repo, Edit edit);
  util::Result<std::map<int, Discussion>> read_discussions(const RepoId& repo) const;
  static int next_number(const Refs& refs, const std::map<int, Discussion>& all);
  util::Status write_repo_record(const RepoId& repo, const RepoInfo& info);

  std::unique_ptr<RecordStore> owned_records_;  // the directory back end of RepoStore(root)
  RecordStore* records_;
  std::filesystem::path root_;
  std::shared_ptr<BlobStore> blobs_;
  ObjectStore objects_;
  XetStore xet_;
  Ownership ownership_;
  std::shared_mutex gc_guard_;
  mutable std::mutex cache_guard_;
  mutable std::map<std::string, CachedCommit> commit_cache_;
};

}  // namespace kb::hub::storage
