// Commits of the repository store: commit objects on disk, loading them, and the atomic commit.
#include "hub/storage/repo_store.h"

#include <algorithm>

#include "hub/storage/repo_store_internal.h"
#include "hub/storage/revisions.h"
#include "hub/storage/storage_errors.h"

namespace kb::hub::storage {

namespace {

// A file at `path` in `tree` clashes with a file at one of its parent folders, or with files
// below a folder of the same name. Returns the message, or nullopt.
std::optional<std::string> folder_clash(const std::map<std::string, TreeEntry>& tree, const std::string& path) {
  for (size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    std::string parent = path.substr(0, slash);
    if (tree.count(parent)) return "Path `" + path + "` needs a folder `" + parent + "`, which is a file";
  }
  std::string folder = path + "/";
  auto below = tree.lower_bound(folder);
  if (below != tree.end() && below->first.rfind(folder, 0) == 0) {
    return "Path `" + path + "` is a folder (it holds `" + below->first + "`) and cannot be a file";
  }
  return std::nullopt;
}

}  // namespace

util::Result<std::string> RepoStore::write_commit(const RepoId& repo, const Commit& commit, const CachedCommit* parent,
                                                 const ChargeRecord& charge) {
  std::string snapshot = serialize_commit(commit);
  std::string id = commit_id(snapshot);
  std::string path = relative(repo, "commits/" + id);
  auto exists = records_->exists(path);
  if (!exists) return storage_failure(std::move(exists).error());
  if (*exists) return id;
  // A delta while the deltas since the last snapshot stay lighter than a snapshot and the chain
  // stays short enough to load quickly (commit.h); a snapshot otherwise.
  std::string bytes = snapshot;
  CachedCommit written{std::make_shared<const Commit>(commit), 0, 0};
  if (parent && parent->commit && parent->depth < kMaxDeltaDepth) {
    CommitDelta delta = diff_commits(parent->commit->tree, commit);
    delta.depth = parent->depth + 1;
    std::string record = serialize_delta(delta);
    delta.bytes_since_snapshot = parent->bytes_since_snapshot + record.size();
    record = serialize_delta(delta);
    if (delta.bytes_since_snapshot < snapshot.size()) {
      bytes = std::move(record);
      written.depth = delta.depth;
      written.bytes_since_snapshot = delta.bytes_since_snapshot;
    }
  }
  if (charge) KB_TRY(charge(record_key(relative(repo, "commits/" + id)), bytes.size()));
  auto stored = records_->write(path, bytes);
  if (!stored) return storage_failure(stored.error());
  // The next commit starts from this one: kept, so it is not rebuilt from its records.
  std::lock_guard<std::mutex> guard(cache_guard_);
  if (commit_cache_.size() > 256) commit_cache_.clear();
  commit_cache_[relative(repo, "#") + id] = std::move(written);
  return id;
}

util::Result<CommitRecord> RepoStore::read_record(const RepoId& repo, const std::string& id) const {
  if (!is_commit_id(id)) return revision_not_found("Invalid rev id: " + id);
  auto bytes = records_->read(relative(repo, "commits/" + id));
  if (!bytes) return storage_failure(std::move(bytes).error());
  if (!*bytes) return revision_not_found("Invalid rev id: " + id);
  auto record = parse_commit_record(**bytes);
  if (!record) return storage_failure("Commit " + id + " is corrupt: " + record.error().message);
  if (record->snapshot && commit_id(**bytes) != id) return storage_failure("Commit " + id + " is corrupt");
  return record;
}

// Reads records from `id` back to a snapshot or a cached commit (at most kMaxDeltaDepth), then
// applies the deltas forwards; the result must hash to `id`, so a damaged record is never served.
util::Result<RepoStore::CachedCommit> RepoStore::load_cached(const RepoId& repo, const std::string& id) const {
  std::string prefix = relative(repo, "#");
  auto cached = [&](const std::string& commit) -> std::optional<CachedCommit> {
    std::lock_guard<std::mutex> guard(cache_guard_);
    if (auto it = commit_cache_.find(prefix + commit); it != commit_cache_.end()) return it->second;
    return std::nullopt;
  };
  if (auto hit = cached(id)) return *hit;
  std::vector<CommitDelta> chain;
  CachedCommit base;
  for (std::string current = id;;) {
    if (!chain.empty()) {
      if (auto hit = cached(current)) {
        base = *hit;
        break;
      }
    }
    auto record = read_record(repo, current);
    if (!record) {
      if (chain.empty()) return std::move(record).error();
      return storage_failure("Commit " + id + " is corrupt: its ancestor " + current + " is missing or damaged");
    }
    if (record->snapshot) {
      base.commit = std::make_shared<const Commit>(std::move(record->commit));
      break;
    }
    if (chain.size() > kMaxDeltaDepth) return storage_failure("Commit " + id + " is corrupt: its delta chain is too long");
    current = record->delta.parent;
    chain.push_back(std::move(record->delta));
  }
  CachedCommit result = base;
  if (!chain.empty()) {
    Commit next = *base.commit;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) next = apply_delta(next, *it);
    if (commit_id(serialize_commit(next)) != id) return storage_failure("Commit " + id + " is corrupt");
    result = CachedCommit{std::make_shared<const Commit>(std::move(next)), chain.front().depth,
                          chain.front().bytes_since_snapshot};
  }
  std::lock_guard<std::mutex> guard(cache_guard_);
  // Commits are immutable, so caching never serves stale data; the bound keeps memory flat.
  if (commit_cache_.size() > 256) commit_cache_.clear();
  commit_cache_[prefix + id] = result;
  return result;
}

util::Result<std::shared_ptr<const Commit>> RepoStore::load_commit(const RepoId& repo, const std::string& id) const {
  auto loaded = load_cached(repo, id);
  if (!loaded) return std::move(loaded).error();
  return loaded->commit;
}

util::Result<CommitResult> RepoStore::commit(const RepoId& repo, const CommitRequest& request) {
  auto info = repo_info(repo);
  if (!info.ok()) return info.error();
  auto held = lock_repo(repo);
  if (!held) return std::move(held).error();
  auto current = read_refs(repo);
  if (!current.ok()) return current.error();
  std::optional<int> target_pr = pr_number(request.revision);
  std::string head;
  if (target_pr) {
    auto it = current->pull_requests.find(*target_pr);
    if (it == current->pull_requests.end()) {
      return revision_not_found("Invalid rev id: " + request.revision);
    }
    head = it->second;
  } else {
    auto it = current->branches.find(branch_name(request.revision));
    if (it == current->branches.end()) {
      return revision_not_found("Invalid rev id: " + request.revision);
    }
    head = it->second;
  }
  if (request.parent_commit && !request.parent_commit->empty() && *request.parent_commit != head) {
    return stale_parent("A commit has happened since. Please refresh and try again.");
  }
  auto base = load_cached(repo, head);
  if (!base.ok()) return base.error();
  Commit next;
  next.parent = head;
  next.tree = base->commit->tree;
  next.message = request.message;
  next.time = now_iso8601();
  next.author = request.author;
  for (const auto& op : request.operations) {
    if (op.kind == OperationKind::add) {
      next.tree[op.path] = op.entry;
    } else if (op.kind == OperationKind::delete_file) {
      if (next.tree.erase(op.path) == 0) {
        return entry_not_found("File not found: " + op.path);
      }
    } else {
      std::string prefix = op.path;
      if (!prefix.empty() && prefix.back() != '/') prefix += '/';
      auto first = next.tree.lower_bound(prefix);
      auto last = first;
      while (last != next.tree.end() && last->first.rfind(prefix, 0) == 0) ++last;
      if (first == last) return entry_not_found("Folder not found: " + op.path);
      next.tree.erase(first, last);
    }
  }
  std::vector<std::string> added;
  for (const auto& op : request.operations) {
    if (op.kind != OperationKind::add) continue;
    if (auto clash = folder_clash(next.tree, op.path)) return invalid_request(*clash);
    added.push_back(op.entry.sha256);
  }
  // Owned before the ref switch: a crash in between leaves a superset, never a commit whose
  // objects its repository does not own.
  {
    auto guard = object_guard();
    if (auto s = ownership_.add(key(repo), added); !s) return storage_failure(s.error());
    // An object whose last owner was deleted in the meantime is gone: refuse, never reference it.
    for (const auto& sha : added) {
      if (!objects_.contains(sha) && !xet_.file_for_sha256(sha)) {
        return invalid_request("Object " + sha + " is no longer stored");
      }
    }
  }
  auto id = write_commit(repo, next, &*base, request.charge);
  if (!id.ok()) return id.error();
  CommitResult result{*id, std::nullopt};
  if (request.create_pr) {
    auto all = read_discussions(repo);
    if (!all.ok()) return all.error();
    int number = next_number(*current, *all);
    // The record first: a crash before the ref switch leaves a pull request without a ref,
    // which reads as one that never got its commit (GET of refs/pr/<n> is 404).
    std::string summary = request.message.substr(0, request.message.find('\n'));
    std::string description =
        summary.size() < request.message.size() ? request.message.substr(std::min(request.message.size(), summary.size() + 2)) : "";
    Discussion opened{number, true, request.author, summary, description, "open", next.time,
                      branch_name(request.revision)};
    KB_TRY(write_discussion(repo, opened, record_key(relative(repo, "discussions/" + std::to_string(number) + ".json")),
                            request.charge));
    current->pull_requests[number] = *id;
    result.pull_request = number;
  } else if (target_pr) {
    current->pull_requests[*target_pr] = *id;
  } else {
    current->branches[branch_name(request.revision)] = *id;
  }
  // The ref switch is the single atomic step that publishes the commit.
  if (auto s = write_refs(repo, *current); !s) return storage_failure(s.error());
  // In the database back end, the commit record, the owned objects and the ref commit together here.
  if (auto s = (*held)->release(); !s) return storage_failure(s.error());
  return result;
}

}  // namespace kb::hub::storage
