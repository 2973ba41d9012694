// Repository store: creation, refs, revision resolution, branch creation and atomic commits.
#include "hub/storage/repo_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <tuple>

#include <nlohmann/json.hpp>

#include "hub/protocol/names.h"
#include "hub/storage/revisions.h"
#include "hub/storage/storage_errors.h"
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

template <typename Edit>
auto RepoStore::edit_refs(const RepoId& repo, Edit edit) {
  using Answer = decltype(edit(std::declval<const fs::path&>(), std::declval<Refs&>()));
  auto info = repo_info(repo);
  if (!info.ok()) return Answer(info.error());
  fs::path dir = repo_dir(repo);
  WriteLock lock(repo_mutex(dir.string()), dir / "lock");
  auto current = read_refs(dir);
  if (!current.ok()) return Answer(current.error());
  return edit(dir, *current);
}

RepoStore::RepoStore(fs::path root)
    : root_(std::move(root)), objects_(root_), xet_(root_), ownership_(root_ / "repos") {}

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

std::vector<RepoId> RepoStore::list_repos(const std::string& type) const {
  std::vector<RepoId> out;
  std::error_code ec;
  for (const auto& space : fs::directory_iterator(root_ / "repos" / (type + "s"), ec)) {
    std::error_code inner;
    for (const auto& repo : fs::directory_iterator(space.path(), inner)) {
      RepoId id{type, space.path().filename().string(), repo.path().filename().string()};
      // repo.json is what makes a repository exist; names are checked as for every route.
      if (valid_name(id.name_space) && valid_name(id.name) && fs::exists(repo.path() / "repo.json", inner)) {
        out.push_back(std::move(id));
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const RepoId& a, const RepoId& b) {
    return std::tie(a.name_space, a.name) < std::tie(b.name_space, b.name);
  });
  return out;
}

std::shared_ptr<std::mutex> RepoStore::repo_mutex(const std::string& key) {
  std::lock_guard<std::mutex> guard(mutexes_guard_);
  auto& slot = mutexes_[key];
  if (!slot) slot = std::make_shared<std::mutex>();
  return slot;
}

util::Result<Refs> RepoStore::read_refs(const fs::path& dir) {
  auto text = util::read_file(dir / "refs.json");
  if (!text) return repo_not_found();
  json doc = json::parse(*text, nullptr, false);
  if (doc.is_discarded() || doc.value("format_version", 0) != kRefsFormatVersion) {
    return storage_failure("Corrupt refs file");
  }
  Refs refs;
  for (const auto& [name, commit] : doc.at("branches").items()) refs.branches[name] = commit.get<std::string>();
  for (const auto& [number, commit] : doc.at("pull_requests").items()) {
    refs.pull_requests[std::stoi(number)] = commit.get<std::string>();
  }
  // Absent in refs files written before tags existed.
  if (auto tags = doc.find("tags"); tags != doc.end()) {
    for (const auto& [name, commit] : tags->items()) refs.tags[name] = commit.get<std::string>();
  }
  return refs;
}

util::Status RepoStore::write_refs(const fs::path& dir, const Refs& refs) {
  json branches = json::object();
  for (const auto& [name, commit] : refs.branches) branches[name] = commit;
  json prs = json::object();
  for (const auto& [number, commit] : refs.pull_requests) prs[std::to_string(number)] = commit;
  json tags = json::object();
  for (const auto& [name, commit] : refs.tags) tags[name] = commit;
  json doc = {{"format_version", kRefsFormatVersion}, {"branches", branches}, {"tags", tags}, {"pull_requests", prs}};
  return util::write_file_atomic(dir / "refs.json", doc.dump(2));
}

util::Status RepoStore::write_repo_record(const fs::path& dir, const RepoInfo& info) {
  json record = {{"format_version", kRepoFormatVersion}, {"private", info.is_private}, {"created", info.created}};
  if (!info.gated.empty()) record["gated"] = info.gated;
  return util::write_file_atomic(dir / "repo.json", record.dump(2));
}

util::Result<RepoInfo> RepoStore::repo_info(const RepoId& repo) const {
  if (!valid_name(repo.name_space) || !valid_name(repo.name)) {
    return repo_not_found();
  }
  auto text = util::read_file(repo_dir(repo) / "repo.json");
  if (!text) return repo_not_found();
  json doc = json::parse(*text, nullptr, false);
  if (doc.is_discarded()) return storage_failure("Corrupt repository record");
  RepoInfo info;
  info.is_private = doc.value("private", false);
  info.created = doc.value("created", "");
  info.gated = doc.value("gated", "");
  return info;
}

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

util::Result<RepoInfo> RepoStore::create_repo(const RepoId& repo, bool is_private) {
  if (auto s = protocol::check_repo_id(repo.full()); !s) return invalid_request(s.error().message);
  fs::path dir = repo_dir(repo);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return storage_failure("Cannot create repository directory: " + ec.message());
  WriteLock lock(repo_mutex(dir.string()), dir / "lock");
  if (fs::exists(dir / "repo.json", ec)) return conflict("You already created this repo");
  auto blob = objects_.put_bytes(kGitAttributes);
  if (!blob) return storage_failure(blob.error().message);
  Commit initial;
  initial.message = "initial commit";
  initial.time = now_iso8601();
  initial.tree[".gitattributes"] = TreeEntry{blob->git_oid, blob->sha256, blob->size, false};
  auto id = write_commit(repo, initial);
  if (!id.ok()) return id.error();
  Refs refs;
  refs.branches["main"] = *id;
  if (auto s = write_refs(dir, refs); !s) return storage_failure(s.error().message);
  if (auto s = ownership_.add(key(repo), {blob->sha256}); !s) return storage_failure(s.error().message);
  RepoInfo info{is_private, initial.time, ""};
  // Written last: a crash before this point leaves no visible repo, and a retry succeeds.
  if (auto s = write_repo_record(dir, info); !s) return storage_failure(s.error().message);
  return info;
}

util::Result<Refs> RepoStore::refs(const RepoId& repo) const {
  auto info = repo_info(repo);
  if (!info.ok()) return info.error();
  return read_refs(repo_dir(repo));
}

util::Result<std::string> RepoStore::resolve(const RepoId& repo, const std::string& revision) const {
  auto all = refs(repo);
  if (!all.ok()) return all.error();
  if (auto number = pr_number(revision)) {
    auto it = all->pull_requests.find(*number);
    if (it != all->pull_requests.end()) return it->second;
  } else {
    auto it = all->branches.find(branch_name(revision));
    if (it != all->branches.end()) return it->second;
    if (auto t = all->tags.find(tag_name(revision)); t != all->tags.end()) return t->second;
    std::error_code ec;
    if (is_commit_id(revision) && fs::exists(repo_dir(repo) / "commits" / revision, ec)) return revision;
  }
  return revision_not_found("Invalid rev id: " + revision);
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

util::Result<RepoStore::RevisionCommit> RepoStore::commit_at(const RepoId& repo, const std::string& revision) const {
  auto id = resolve(repo, revision);
  if (!id.ok()) return id.error();
  auto commit = load_commit(repo, *id);
  if (!commit.ok()) return commit.error();
  return RevisionCommit{std::move(*id), std::move(*commit)};
}

util::Result<std::string> RepoStore::create_branch(const RepoId& repo, const std::string& branch,
                                              const std::string& starting_point) {
  return edit_refs(repo, [&](const fs::path& dir, Refs& refs) -> util::Result<std::string> {
    if (auto s = protocol::check_ref_name(branch); !s) return invalid_request(s.error().message);
    if (refs.branches.count(branch)) return conflict("Reference already exists");
    // Branch names form a folder tree (git stores refs as files): `v1` and `v1/x` cannot both exist.
    for (const auto& [existing, commit] : refs.branches) {
      if (branch.rfind(existing + "/", 0) == 0 || existing.rfind(branch + "/", 0) == 0) {
        return conflict("Branch `" + branch + "` conflicts with existing branch `" + existing + "`");
      }
    }
    auto start = resolve(repo, starting_point);
    if (!start.ok()) return start.error();
    refs.branches[branch] = *start;
    if (auto s = write_refs(dir, refs); !s) return storage_failure(s.error().message);
    return *start;
  });
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

// ---- Administration: branches, tags, settings, deletion, history, discussions.

util::Result<std::string> RepoStore::delete_branch(const RepoId& repo, const std::string& branch) {
  return edit_refs(repo, [&](const fs::path& dir, Refs& refs) -> util::Result<std::string> {
    std::string name = branch_name(branch);
    if (name == "main") return forbidden("Cannot delete the default branch `main`");
    auto it = refs.branches.find(name);
    if (it == refs.branches.end()) return revision_not_found("Invalid rev id: " + branch);
    std::string head = it->second;
    refs.branches.erase(it);
    if (auto s = write_refs(dir, refs); !s) return storage_failure(s.error().message);
    return head;
  });
}

util::Result<std::string> RepoStore::create_tag(const RepoId& repo, const std::string& tag, const std::string& revision) {
  return edit_refs(repo, [&](const fs::path& dir, Refs& refs) -> util::Result<std::string> {
    std::string name = tag_name(tag);
    if (auto s = protocol::check_ref_name(name); !s) return invalid_request(s.error().message);
    if (refs.tags.count(name)) return conflict("Tag `" + name + "` already exists");
    auto target = resolve(repo, revision);
    if (!target.ok()) return target.error();
    refs.tags[name] = *target;
    if (auto s = write_refs(dir, refs); !s) return storage_failure(s.error().message);
    return *target;
  });
}

util::Result<std::string> RepoStore::delete_tag(const RepoId& repo, const std::string& tag) {
  return edit_refs(repo, [&](const fs::path& dir, Refs& refs) -> util::Result<std::string> {
    auto it = refs.tags.find(tag_name(tag));
    if (it == refs.tags.end()) return revision_not_found("Invalid rev id: " + tag);
    std::string target = it->second;
    refs.tags.erase(it);
    if (auto s = write_refs(dir, refs); !s) return storage_failure(s.error().message);
    return target;
  });
}

util::Result<RepoInfo> RepoStore::update_settings(const RepoId& repo, std::optional<bool> is_private,
                                             std::optional<std::string> gated) {
  if (gated && !gated->empty() && *gated != "auto" && *gated != "manual") {
    return invalid_request("gated: expected \"auto\", \"manual\" or false");
  }
  auto before = repo_info(repo);
  if (!before.ok()) return before.error();
  fs::path dir = repo_dir(repo);
  WriteLock lock(repo_mutex(dir.string()), dir / "lock");
  auto info = repo_info(repo);  // again, under the lock
  if (!info.ok()) return info.error();
  if (is_private) info->is_private = *is_private;
  if (gated) info->gated = *gated;
  if (auto s = write_repo_record(dir, *info); !s) return storage_failure(s.error().message);
  return *info;
}

util::Result<std::vector<std::string>> RepoStore::delete_repo(const RepoId& repo) {
  auto info = repo_info(repo);
  if (!info.ok()) return info.error();
  fs::path dir = repo_dir(repo);
  fs::path trash = root_ / "tmp" / ("deleted-" + commit_id(key(repo) + now_iso8601()));
  {
    WriteLock lock(repo_mutex(dir.string()), dir / "lock");
    if (!fs::exists(dir / "repo.json")) return repo_not_found();
    std::error_code ec;
    fs::create_directories(trash.parent_path(), ec);
    // One rename makes the repository disappear at once; the rest is clean-up.
    fs::rename(dir, trash, ec);
    if (ec) return storage_failure("Cannot delete repository: " + ec.message());
  }
  std::error_code ec;
  fs::remove_all(trash, ec);
  {
    std::lock_guard<std::mutex> guard(cache_guard_);
    commit_cache_.clear();
  }
  std::unique_lock<std::shared_mutex> exclusive(gc_guard_);
  std::vector<std::string> removed;
  // Bodies kept elsewhere (Xet storage) are not the object store's to remove.
  for (const auto& sha : ownership_.remove_repo(key(repo))) {
    if (!objects_.contains(sha)) continue;
    if (auto s = objects_.remove(sha); !s) return storage_failure(s.error().message);
    removed.push_back(sha);
  }
  return removed;
}

util::Result<std::pair<std::vector<HistoryEntry>, bool>> RepoStore::history(const RepoId& repo, const std::string& revision,
                                                                       size_t skip, size_t limit) const {
  auto head = resolve(repo, revision);
  if (!head.ok()) return head.error();
  std::vector<HistoryEntry> page;
  std::string id = *head;
  for (size_t index = 0; !id.empty(); ++index) {
    if (index >= skip + limit) return std::make_pair(std::move(page), true);
    auto commit = load_commit(repo, id);
    if (!commit.ok()) return commit.error();
    if (index >= skip) page.push_back(HistoryEntry{id, *commit});
    id = (*commit)->parent;
  }
  return std::make_pair(std::move(page), false);
}

util::Result<std::map<int, Discussion>> RepoStore::read_discussions(const fs::path& dir) {
  std::map<int, Discussion> all;
  auto text = util::read_file(dir / "discussions.json");
  if (!text) return all;  // none yet
  json doc = json::parse(*text, nullptr, false);
  if (doc.is_discarded() || doc.value("format_version", 0) != 1 || !doc.contains("discussions")) {
    return storage_failure("Corrupt discussions file");
  }
  for (const auto& [number, d] : doc.at("discussions").items()) {
    Discussion entry;
    entry.num = std::stoi(number);
    entry.pull_request = d.value("pull_request", false);
    entry.author = d.value("author", "");
    entry.title = d.value("title", "");
    entry.description = d.value("description", "");
    entry.status = d.value("status", "open");
    entry.created = d.value("created", "");
    entry.base = d.value("base", "");
    all[entry.num] = std::move(entry);
  }
  return all;
}

util::Status RepoStore::write_discussions(const fs::path& dir, const std::map<int, Discussion>& all) {
  json list = json::object();
  for (const auto& [number, d] : all) {
    list[std::to_string(number)] = {{"pull_request", d.pull_request}, {"author", d.author}, {"title", d.title},
                                    {"description", d.description}, {"status", d.status}, {"created", d.created},
                                    {"base", d.base}};
  }
  return util::write_file_atomic(dir / "discussions.json", json{{"format_version", 1}, {"discussions", list}}.dump(2));
}

int RepoStore::next_number(const Refs& refs, const std::map<int, Discussion>& all) {
  // Discussions and pull requests share one sequence, as on huggingface.co.
  int last = 0;
  if (!refs.pull_requests.empty()) last = refs.pull_requests.rbegin()->first;
  if (!all.empty()) last = std::max(last, all.rbegin()->first);
  return last + 1;
}

util::Result<std::vector<Discussion>> RepoStore::discussions(const RepoId& repo) const {
  auto info = repo_info(repo);
  if (!info.ok()) return info.error();
  auto all = read_discussions(repo_dir(repo));
  if (!all.ok()) return all.error();
  std::vector<Discussion> out;
  for (auto it = all->rbegin(); it != all->rend(); ++it) out.push_back(it->second);
  return out;
}

util::Result<Discussion> RepoStore::discussion(const RepoId& repo, int num) const {
  auto info = repo_info(repo);
  if (!info.ok()) return info.error();
  auto all = read_discussions(repo_dir(repo));
  if (!all.ok()) return all.error();
  auto it = all->find(num);
  if (it == all->end()) return discussion_not_found("Discussion #" + std::to_string(num) + " not found");
  return it->second;
}

util::Result<Discussion> RepoStore::open_discussion(const RepoId& repo, Discussion discussion) {
  return edit_refs(repo, [&](const fs::path& dir, Refs& refs) -> util::Result<Discussion> {
    auto all = read_discussions(dir);
    if (!all.ok()) return all.error();
    discussion.num = next_number(refs, *all);
    discussion.created = now_iso8601();
    std::string head;
    if (discussion.pull_request) {
      auto it = refs.branches.find(discussion.base);
      if (it == refs.branches.end()) {
        return revision_not_found("Invalid rev id: " + discussion.base);
      }
      head = it->second;
    }
    (*all)[discussion.num] = discussion;
    if (auto s = write_discussions(dir, *all); !s) return storage_failure(s.error().message);
    if (discussion.pull_request) {
      refs.pull_requests[discussion.num] = head;
      if (auto s = write_refs(dir, refs); !s) return storage_failure(s.error().message);
    }
    return discussion;
  });
}

}  // namespace kb::hub::storage
