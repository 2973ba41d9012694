// Repository store: creation, records, refs, revision resolution and branch creation. Commits are in
// repo_commits.cpp, tags and branch deletion in repo_refs.cpp, settings and deletion in
// repo_settings.cpp, history in repo_history.cpp, discussions in repo_discussions.cpp.
#include "hub/storage/repo_store.h"

#include <algorithm>
#include <tuple>

#include <nlohmann/json.hpp>

#include "hub/protocol/names.h"
#include "hub/storage/directory_blobs.h"
#include "hub/storage/directory_records.h"
#include "hub/storage/repo_store_internal.h"
#include "hub/storage/revisions.h"
#include "hub/storage/storage_errors.h"
#include "util/fs.h"
#include "util/hash.h"

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

}  // namespace

RepoStore::RepoStore(fs::path root, std::shared_ptr<BlobStore> blobs)
    : owned_records_(std::make_unique<DirectoryRecords>(root)),
      records_(owned_records_.get()),
      root_(std::move(root)),
      blobs_(blobs ? std::move(blobs) : std::make_shared<DirectoryBlobs>(root_)),
      objects_(*blobs_),
      xet_(*records_, root_, *blobs_),
      ownership_(*records_) {}

RepoStore::RepoStore(RecordStore& records, fs::path root, std::shared_ptr<BlobStore> blobs)
    : records_(&records),
      root_(std::move(root)),
      blobs_(blobs ? std::move(blobs) : std::make_shared<DirectoryBlobs>(root_)),
      objects_(*blobs_),
      xet_(records, root_, *blobs_),
      ownership_(records) {}

util::Result<std::unique_ptr<RecordLock>> RepoStore::lock_repo(const RepoId& repo) {
  auto held = records_->lock(relative(repo, "lock"));
  if (!held) return storage_failure(std::move(held).error());
  return held;
}

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

std::vector<RepoId> RepoStore::list_repos(const std::string& type) const {
  std::vector<RepoId> out;
  std::string base = "repos/" + type + "s";
  auto spaces = records_->list(base);
  if (!spaces) return out;
  for (const auto& space : *spaces) {
    if (!valid_name(space)) continue;
    auto names = records_->list(base + "/" + space);
    if (!names) continue;
    for (const auto& name : *names) {
      // repo.json is what makes a repository exist; names are checked as for every route.
      auto exists = records_->exists(base + "/" + space + "/" + name + "/repo.json");
      if (valid_name(name) && exists && *exists) out.push_back(RepoId{type, space, name});
    }
  }
  std::sort(out.begin(), out.end(), [](const RepoId& a, const RepoId& b) {
    return std::tie(a.name_space, a.name) < std::tie(b.name_space, b.name);
  });
  return out;
}

util::Result<Refs> RepoStore::read_refs(const RepoId& repo) const {
  auto text = records_->read(relative(repo, "refs.json"));
  if (!text) return storage_failure(std::move(text).error());
  if (!*text) return repo_not_found();
  json doc = json::parse(**text, nullptr, false);
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

namespace {

std::string refs_text(const Refs& refs) {
  json branches = json::object();
  for (const auto& [name, commit] : refs.branches) branches[name] = commit;
  json prs = json::object();
  for (const auto& [number, commit] : refs.pull_requests) prs[std::to_string(number)] = commit;
  json tags = json::object();
  for (const auto& [name, commit] : refs.tags) tags[name] = commit;
  json doc = {{"format_version", kRefsFormatVersion}, {"branches", branches}, {"tags", tags}, {"pull_requests", prs}};
  return doc.dump(2);
}

std::string repo_record_text(const RepoInfo& info) {
  json record = {{"format_version", kRepoFormatVersion}, {"private", info.is_private}, {"created", info.created}};
  if (!info.gated.empty()) record["gated"] = info.gated;
  return record.dump(2);
}

}  // namespace

std::string RepoStore::record_key(const std::string& relative_path) {
  return util::sha256_hex("kernel-hub record\n" + relative_path);
}

std::string RepoStore::ref_record_key(const RepoId& repo, bool tag, const std::string& name) {
  return record_key("repos/" + key(repo) + (tag ? "/refs/tags/" + tag_name(name) : "/refs/heads/" + branch_name(name)));
}

uint64_t RepoStore::ref_bytes(const std::string& name) { return name.size() + 52; }

util::Status RepoStore::write_refs(const RepoId& repo, const Refs& refs) {
  return records_->write(relative(repo, "refs.json"), refs_text(refs));
}

util::Status RepoStore::write_repo_record(const RepoId& repo, const RepoInfo& info) {
  return records_->write(relative(repo, "repo.json"), repo_record_text(info));
}

util::Result<RepoInfo> RepoStore::repo_info(const RepoId& repo) const {
  if (!valid_name(repo.name_space) || !valid_name(repo.name)) {
    return repo_not_found();
  }
  auto text = records_->read(relative(repo, "repo.json"));
  if (!text) return storage_failure(std::move(text).error());
  if (!*text) return repo_not_found();
  json doc = json::parse(**text, nullptr, false);
  if (doc.is_discarded()) return storage_failure("Corrupt repository record");
  RepoInfo info;
  info.is_private = doc.value("private", false);
  info.created = doc.value("created", "");
  info.gated = doc.value("gated", "");
  return info;
}

util::Result<RepoInfo> RepoStore::create_repo(const RepoId& repo, bool is_private, const ChargeRecord& charge) {
  if (auto s = protocol::check_repo_id(repo.full()); !s) return invalid_request(s.error().message);
  auto held = lock_repo(repo);
  if (!held) return std::move(held).error();
  auto exists = records_->exists(relative(repo, "repo.json"));
  if (!exists) return storage_failure(std::move(exists).error());
  if (*exists) return conflict("You already created this repo");
  auto blob = objects_.put_bytes(kGitAttributes);
  if (!blob) return storage_failure(blob.error().message);
  Commit initial;
  initial.message = "initial commit";
  initial.time = now_iso8601();
  initial.tree[".gitattributes"] = TreeEntry{blob->git_oid, blob->sha256, blob->size, false};
  Refs refs;
  refs.branches["main"] = commit_id(serialize_commit(initial));
  RepoInfo info{is_private, initial.time, ""};
  if (charge) {
    // Its records: the first commit, refs.json, repo.json and its line of the owned set.
    uint64_t bytes = serialize_commit(initial).size() + refs_text(refs).size() + repo_record_text(info).size() + 65;
    KB_TRY(charge(record_key(relative(repo, "repo.json")), bytes));
  }
  auto id = write_commit(repo, initial, nullptr, {});
  if (!id.ok()) return id.error();
  if (auto s = write_refs(repo, refs); !s) return storage_failure(s.error());
  if (auto s = ownership_.add(key(repo), {blob->sha256}); !s) return storage_failure(s.error());
  // Written last: a crash before this point leaves no visible repo, and a retry succeeds.
  if (auto s = write_repo_record(repo, info); !s) return storage_failure(s.error());
  if (auto s = (*held)->release(); !s) return storage_failure(s.error());
  return info;
}

util::Result<Refs> RepoStore::refs(const RepoId& repo) const {
  auto info = repo_info(repo);
  if (!info.ok()) return info.error();
  return read_refs(repo);
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
    if (is_commit_id(revision)) {
      auto exists = records_->exists(relative(repo, "commits/" + revision));
      if (!exists) return storage_failure(std::move(exists).error());
      if (*exists) return revision;
    }
  }
  return revision_not_found("Invalid rev id: " + revision);
}

util::Result<RepoStore::RevisionCommit> RepoStore::commit_at(const RepoId& repo, const std::string& revision) const {
  auto id = resolve(repo, revision);
  if (!id.ok()) return id.error();
  auto commit = load_commit(repo, *id);
  if (!commit.ok()) return commit.error();
  return RevisionCommit{std::move(*id), std::move(*commit)};
}

util::Result<std::string> RepoStore::create_branch(const RepoId& repo, const std::string& branch,
                                                   const std::string& starting_point, const ChargeRecord& charge) {
  return edit_refs(repo, [&](Refs& refs) -> util::Result<std::string> {
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
    if (charge) KB_TRY(charge(ref_record_key(repo, false, branch), ref_bytes(branch)));
    refs.branches[branch] = *start;
    if (auto s = write_refs(repo, refs); !s) return storage_failure(s.error());
    return *start;
  });
}

}  // namespace kb::hub::storage
