// Commits of the repository store: commit objects on disk, loading them, and the atomic commit.
#include "hub/storage/repo_store.h"

#include <algorithm>

#include "hub/storage/repo_store_internal.h"
#include "hub/storage/revisions.h"
#include "hub/storage/storage_errors.h"
#include "util/fs.h"

namespace kb::hub::storage {

namespace fs = std::filesystem;

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

util::Result<std::string> RepoStore::write_commit(const RepoId& repo, const Commit& commit) {
  std::string bytes = serialize_commit(commit);
  std::string id = commit_id(bytes);
  fs::path path = repo_dir(repo) / "commits" / id;
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    fs::create_directories(path.parent_path(), ec);
    auto written = util::write_file_atomic(path, bytes);
    if (!written) return storage_failure(written.error().message);
  }
  return id;
}

util::Result<std::shared_ptr<const Commit>> RepoStore::load_commit(const RepoId& repo, const std::string& id) const {
  std::string key = repo_dir(repo).string() + "#" + id;
  {
    std::lock_guard<std::mutex> guard(cache_guard_);
    if (auto it = commit_cache_.find(key); it != commit_cache_.end()) return it->second;
  }
  auto bytes = util::read_file(repo_dir(repo) / "commits" / id);
  if (!bytes) return revision_not_found("Invalid rev id: " + id);
  if (commit_id(*bytes) != id) return storage_failure("Commit " + id + " is corrupt");
  auto parsed = parse_commit(*bytes);
  if (!parsed) return storage_failure(parsed.error().message);
  auto commit = std::make_shared<const Commit>(std::move(*parsed));
  std::lock_guard<std::mutex> guard(cache_guard_);
  // Commits are immutable, so caching never serves stale data; the bound keeps memory flat.
  if (commit_cache_.size() > 256) commit_cache_.clear();
  commit_cache_[key] = commit;
  return commit;
}

util::Result<CommitResult> RepoStore::commit(const RepoId& repo, const CommitRequest& request) {
  auto info = repo_info(repo);
  if (!info.ok()) return info.error();
  fs::path dir = repo_dir(repo);
  WriteLock lock(repo_mutex(dir.string()), dir / "lock");
  if (!lock.ok()) return storage_failure("Cannot lock repository");
  auto current = read_refs(dir);
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
  auto base = load_commit(repo, head);
  if (!base.ok()) return base.error();
  Commit next;
  next.parent = head;
  next.tree = (*base)->tree;
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
    if (auto s = ownership_.add(key(repo), added); !s) return storage_failure(s.error().message);
    // An object whose last owner was deleted in the meantime is gone: refuse, never reference it.
    for (const auto& sha : added) {
      if (!objects_.contains(sha) && !xet_.file_for_sha256(sha)) {
        return invalid_request("Object " + sha + " is no longer stored");
      }
    }
  }
  auto id = write_commit(repo, next);
  if (!id.ok()) return id.error();
  CommitResult result{*id, std::nullopt};
  if (request.create_pr) {
    auto all = read_discussions(dir);
    if (!all.ok()) return all.error();
    int number = next_number(*current, *all);
    // The record first: a crash before the ref switch leaves a pull request without a ref,
    // which reads as one that never got its commit (GET of refs/pr/<n> is 404).
    std::string summary = request.message.substr(0, request.message.find('\n'));
    std::string description =
        summary.size() < request.message.size() ? request.message.substr(std::min(request.message.size(), summary.size() + 2)) : "";
    (*all)[number] = Discussion{number, true, request.author, summary, description, "open", next.time,
                                      branch_name(request.revision)};
    if (auto s = write_discussions(dir, *all); !s) return storage_failure(s.error().message);
    current->pull_requests[number] = *id;
    result.pull_request = number;
  } else if (target_pr) {
    current->pull_requests[*target_pr] = *id;
  } else {
    current->branches[branch_name(request.revision)] = *id;
  }
  // The ref switch is the single atomic step that publishes the commit.
  if (auto s = write_refs(dir, *current); !s) return storage_failure(s.error().message);
  return result;
}
}  // namespace kb::hub::storage
