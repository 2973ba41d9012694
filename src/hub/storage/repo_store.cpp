// Repository store: creation, refs, revision resolution, branch creation and atomic commits.
#include "hub/storage/repo_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "hub/protocol/names.h"
#include "util/fs.h"

namespace kb::hub::storage {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kRefsFormatVersion = 1;
constexpr int kRepoFormatVersion = 1;

// Attributes of a fresh repo, as the Hub writes them: binary files go through LFS.
constexpr const char* kGitAttributes =
    "*.so filter=lfs diff=lfs merge=lfs -text\n"
    "*.bin filter=lfs diff=lfs merge=lfs -text\n"
    "*.safetensors filter=lfs diff=lfs merge=lfs -text\n"
    "*.metallib filter=lfs diff=lfs merge=lfs -text\n";

bool is_commit_id(const std::string& text) {
  if (text.size() != 40) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::optional<int> pr_number(const std::string& revision) {
  const std::string prefix = "refs/pr/";
  if (revision.rfind(prefix, 0) != 0) return std::nullopt;
  std::string digits = revision.substr(prefix.size());
  if (digits.empty() || digits.size() > 9) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return std::stoi(digits);
}

std::string branch_name(const std::string& revision) {
  const std::string prefix = "refs/heads/";
  return revision.rfind(prefix, 0) == 0 ? revision.substr(prefix.size()) : revision;
}

Problem problem(Failure failure, std::string message) { return Problem{failure, std::move(message)}; }

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

class RepoStore::WriteLock {
 public:
  WriteLock(std::shared_ptr<std::mutex> mutex, const fs::path& lock_file)
      : mutex_(std::move(mutex)), guard_(*mutex_) {
    fd_ = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~WriteLock() {
    if (fd_ >= 0) {
      ::flock(fd_, LOCK_UN);
      ::close(fd_);
    }
  }
  WriteLock(const WriteLock&) = delete;
  WriteLock& operator=(const WriteLock&) = delete;
  bool ok() const { return fd_ >= 0; }

 private:
  std::shared_ptr<std::mutex> mutex_;
  std::lock_guard<std::mutex> guard_;
  int fd_ = -1;
};

RepoStore::RepoStore(fs::path root) : root_(std::move(root)), objects_(root_), ownership_(root_ / "repos") {}

bool RepoStore::valid_name(const std::string& name) { return protocol::check_repo_name(name).ok(); }

std::vector<RepoId> RepoStore::owners(const std::string& sha256) {
  std::vector<RepoId> out;
  for (const auto& k : ownership_.owners(sha256)) {
    auto first = k.find('/');
    auto second = k.find('/', first + 1);
    if (first == std::string::npos || second == std::string::npos || first == 0 || k[first - 1] != 's') continue;
    out.push_back(RepoId{k.substr(0, first - 1), k.substr(first + 1, second - first - 1), k.substr(second + 1)});
  }
  return out;
}

fs::path RepoStore::repo_dir(const RepoId& repo) const {
  return root_ / "repos" / (repo.type + "s") / repo.name_space / repo.name;
}

std::shared_ptr<std::mutex> RepoStore::repo_mutex(const std::string& key) {
  std::lock_guard<std::mutex> guard(mutexes_guard_);
  auto& slot = mutexes_[key];
  if (!slot) slot = std::make_shared<std::mutex>();
  return slot;
}

Outcome<Refs> RepoStore::read_refs(const fs::path& dir) {
  auto text = util::read_file(dir / "refs.json");
  if (!text) return problem(Failure::repo_not_found, "Repository not found");
  json doc = json::parse(*text, nullptr, false);
  if (doc.is_discarded() || doc.value("format_version", 0) != kRefsFormatVersion) {
    return problem(Failure::io, "Corrupt refs file");
  }
  Refs refs;
  for (const auto& [name, commit] : doc.at("branches").items()) refs.branches[name] = commit.get<std::string>();
  for (const auto& [number, commit] : doc.at("pull_requests").items()) {
    refs.pull_requests[std::stoi(number)] = commit.get<std::string>();
  }
  return refs;
}

util::Status RepoStore::write_refs(const fs::path& dir, const Refs& refs) {
  json branches = json::object();
  for (const auto& [name, commit] : refs.branches) branches[name] = commit;
  json prs = json::object();
  for (const auto& [number, commit] : refs.pull_requests) prs[std::to_string(number)] = commit;
  json doc = {{"format_version", kRefsFormatVersion}, {"branches", branches}, {"pull_requests", prs}};
  return util::write_file_atomic(dir / "refs.json", doc.dump(2));
}

Outcome<RepoInfo> RepoStore::repo_info(const RepoId& repo) const {
  if (!valid_name(repo.name_space) || !valid_name(repo.name)) {
    return problem(Failure::repo_not_found, "Repository not found");
  }
  auto text = util::read_file(repo_dir(repo) / "repo.json");
  if (!text) return problem(Failure::repo_not_found, "Repository not found");
  json doc = json::parse(*text, nullptr, false);
  if (doc.is_discarded()) return problem(Failure::io, "Corrupt repository record");
  RepoInfo info;
  info.is_private = doc.value("private", false);
  info.created = doc.value("created", "");
  return info;
}

Outcome<std::string> RepoStore::write_commit(const RepoId& repo, const Commit& commit) {
  std::string bytes = serialize_commit(commit);
  std::string id = commit_id(bytes);
  fs::path path = repo_dir(repo) / "commits" / id;
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    fs::create_directories(path.parent_path(), ec);
    auto written = util::write_file_atomic(path, bytes);
    if (!written) return problem(Failure::io, written.error().message);
  }
  return id;
}

Outcome<RepoInfo> RepoStore::create_repo(const RepoId& repo, bool is_private) {
  if (auto s = protocol::check_repo_id(repo.full()); !s) return problem(Failure::invalid, s.error().message);
  fs::path dir = repo_dir(repo);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return problem(Failure::io, "Cannot create repository directory: " + ec.message());
  WriteLock lock(repo_mutex(dir.string()), dir / "lock");
  if (fs::exists(dir / "repo.json", ec)) return problem(Failure::conflict, "You already created this repo");
  auto blob = objects_.put_bytes(kGitAttributes);
  if (!blob) return problem(Failure::io, blob.error().message);
  Commit initial;
  initial.message = "initial commit";
  initial.time = now_iso8601();
  initial.tree[".gitattributes"] = TreeEntry{blob->git_oid, blob->sha256, blob->size, false};
  auto id = write_commit(repo, initial);
  if (!id.ok()) return id.problem;
  Refs refs;
  refs.branches["main"] = *id.value;
  if (auto s = write_refs(dir, refs); !s) return problem(Failure::io, s.error().message);
  if (auto s = ownership_.add(key(repo), {blob->sha256}); !s) return problem(Failure::io, s.error().message);
  RepoInfo info{is_private, initial.time};
  json record = {{"format_version", kRepoFormatVersion}, {"private", is_private}, {"created", info.created}};
  // Written last: a crash before this point leaves no visible repo, and a retry succeeds.
  if (auto s = util::write_file_atomic(dir / "repo.json", record.dump(2)); !s) {
    return problem(Failure::io, s.error().message);
  }
  return info;
}

Outcome<Refs> RepoStore::refs(const RepoId& repo) const {
  auto info = repo_info(repo);
  if (!info.ok()) return info.problem;
  return read_refs(repo_dir(repo));
}

Outcome<std::string> RepoStore::resolve(const RepoId& repo, const std::string& revision) const {
  auto all = refs(repo);
  if (!all.ok()) return all.problem;
  if (auto number = pr_number(revision)) {
    auto it = all.value->pull_requests.find(*number);
    if (it != all.value->pull_requests.end()) return it->second;
  } else {
    auto it = all.value->branches.find(branch_name(revision));
    if (it != all.value->branches.end()) return it->second;
    std::error_code ec;
    if (is_commit_id(revision) && fs::exists(repo_dir(repo) / "commits" / revision, ec)) return revision;
  }
  return problem(Failure::revision_not_found, "Invalid rev id: " + revision);
}

Outcome<std::shared_ptr<const Commit>> RepoStore::load_commit(const RepoId& repo, const std::string& id) const {
  std::string key = repo_dir(repo).string() + "#" + id;
  {
    std::lock_guard<std::mutex> guard(cache_guard_);
    if (auto it = commit_cache_.find(key); it != commit_cache_.end()) return it->second;
  }
  auto bytes = util::read_file(repo_dir(repo) / "commits" / id);
  if (!bytes) return problem(Failure::revision_not_found, "Invalid rev id: " + id);
  if (commit_id(*bytes) != id) return problem(Failure::io, "Commit " + id + " is corrupt");
  auto parsed = parse_commit(*bytes);
  if (!parsed) return problem(Failure::io, parsed.error().message);
  auto commit = std::make_shared<const Commit>(std::move(*parsed));
  std::lock_guard<std::mutex> guard(cache_guard_);
  // Commits are immutable, so caching never serves stale data; the bound keeps memory flat.
  if (commit_cache_.size() > 256) commit_cache_.clear();
  commit_cache_[key] = commit;
  return commit;
}

Outcome<std::string> RepoStore::create_branch(const RepoId& repo, const std::string& branch,
                                              const std::string& starting_point) {
  auto info = repo_info(repo);
  if (!info.ok()) return info.problem;
  if (auto s = protocol::check_ref_name(branch); !s) return problem(Failure::invalid, s.error().message);
  fs::path dir = repo_dir(repo);
  WriteLock lock(repo_mutex(dir.string()), dir / "lock");
  auto current = read_refs(dir);
  if (!current.ok()) return current.problem;
  if (current.value->branches.count(branch)) return problem(Failure::conflict, "Reference already exists");
  // Branch names form a folder tree (git stores refs as files): `v1` and `v1/x` cannot both exist.
  for (const auto& [existing, commit] : current.value->branches) {
    if (branch.rfind(existing + "/", 0) == 0 || existing.rfind(branch + "/", 0) == 0) {
      return problem(Failure::conflict, "Branch `" + branch + "` conflicts with existing branch `" + existing + "`");
    }
  }
  auto start = resolve(repo, starting_point);
  if (!start.ok()) return start.problem;
  current.value->branches[branch] = *start.value;
  if (auto s = write_refs(dir, *current.value); !s) return problem(Failure::io, s.error().message);
  return *start.value;
}

Outcome<CommitResult> RepoStore::commit(const RepoId& repo, const CommitRequest& request) {
  auto info = repo_info(repo);
  if (!info.ok()) return info.problem;
  fs::path dir = repo_dir(repo);
  WriteLock lock(repo_mutex(dir.string()), dir / "lock");
  if (!lock.ok()) return problem(Failure::io, "Cannot lock repository");
  auto current = read_refs(dir);
  if (!current.ok()) return current.problem;
  std::optional<int> target_pr = pr_number(request.revision);
  std::string head;
  if (target_pr) {
    auto it = current.value->pull_requests.find(*target_pr);
    if (it == current.value->pull_requests.end()) {
      return problem(Failure::revision_not_found, "Invalid rev id: " + request.revision);
    }
    head = it->second;
  } else {
    auto it = current.value->branches.find(branch_name(request.revision));
    if (it == current.value->branches.end()) {
      return problem(Failure::revision_not_found, "Invalid rev id: " + request.revision);
    }
    head = it->second;
  }
  if (request.parent_commit && !request.parent_commit->empty() && *request.parent_commit != head) {
    return problem(Failure::stale_parent, "A commit has happened since. Please refresh and try again.");
  }
  auto base = load_commit(repo, head);
  if (!base.ok()) return base.problem;
  Commit next;
  next.parent = head;
  next.tree = (*base.value)->tree;
  next.message = request.message;
  next.time = now_iso8601();
  for (const auto& op : request.operations) {
    if (op.kind == OperationKind::add) {
      next.tree[op.path] = op.entry;
    } else if (op.kind == OperationKind::delete_file) {
      if (next.tree.erase(op.path) == 0) {
        return problem(Failure::entry_not_found, "File not found: " + op.path);
      }
    } else {
      std::string prefix = op.path;
      if (!prefix.empty() && prefix.back() != '/') prefix += '/';
      auto first = next.tree.lower_bound(prefix);
      auto last = first;
      while (last != next.tree.end() && last->first.rfind(prefix, 0) == 0) ++last;
      if (first == last) return problem(Failure::entry_not_found, "Folder not found: " + op.path);
      next.tree.erase(first, last);
    }
  }
  std::vector<std::string> added;
  for (const auto& op : request.operations) {
    if (op.kind != OperationKind::add) continue;
    if (auto clash = folder_clash(next.tree, op.path)) return problem(Failure::invalid, *clash);
    added.push_back(op.entry.sha256);
  }
  // Owned before the ref switch: a crash in between leaves a superset, never a commit whose
  // objects its repository does not own.
  if (auto s = ownership_.add(key(repo), added); !s) return problem(Failure::io, s.error().message);
  auto id = write_commit(repo, next);
  if (!id.ok()) return id.problem;
  CommitResult result{*id.value, std::nullopt};
  if (request.create_pr) {
    int number = current.value->pull_requests.empty() ? 1 : current.value->pull_requests.rbegin()->first + 1;
    current.value->pull_requests[number] = *id.value;
    result.pull_request = number;
  } else if (target_pr) {
    current.value->pull_requests[*target_pr] = *id.value;
  } else {
    current.value->branches[branch_name(request.revision)] = *id.value;
  }
  // The ref switch is the single atomic step that publishes the commit.
  if (auto s = write_refs(dir, *current.value); !s) return problem(Failure::io, s.error().message);
  return result;
}

}  // namespace kb::hub::storage
