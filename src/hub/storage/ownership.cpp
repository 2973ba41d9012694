// Owned-object sets of repositories (see ownership.h).
#include "hub/storage/ownership.h"

#include "hub/storage/commit.h"
#include "util/strings.h"

namespace kb::hub::storage {

namespace {

constexpr const char* kOwnedRecord = "owned";

bool is_sha256(const std::string& text) {
  return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::string repo_path(const std::string& repo_key, const std::string& name) { return "repos/" + repo_key + "/" + name; }

}  // namespace

Ownership::Ownership(RecordStore& records) : records_(records) {}

std::set<std::string> Ownership::load_repo(const std::string& repo_key) {
  std::set<std::string> owned;
  auto text = records_.read(repo_path(repo_key, kOwnedRecord));
  if (text && *text) {
    for (const auto& line : util::split(**text, '\n')) {
      if (is_sha256(line)) owned.insert(line);
    }
    return owned;
  }
  // A repository from before owned sets: every object its commits reference.
  auto commits = records_.list(repo_path(repo_key, "commits"));
  for (const auto& name : commits ? *commits : std::vector<std::string>{}) {
    auto bytes = records_.read(repo_path(repo_key, "commits/" + name));
    if (!bytes || !*bytes) continue;
    auto record = parse_commit_record(**bytes);
    if (!record) continue;
    for (const auto& [path, file] : record->snapshot ? record->commit.tree : record->delta.set) owned.insert(file.sha256);
  }
  std::string lines;
  for (const auto& sha : owned) lines += sha + "\n";
  (void)records_.write(repo_path(repo_key, kOwnedRecord), lines);
  return owned;
}

void Ownership::for_each_repository(const std::function<void(const std::string&)>& visit) {
  auto types = records_.list("repos");
  for (const auto& type : types ? *types : std::vector<std::string>{}) {
    auto spaces = records_.list("repos/" + type);
    for (const auto& space : spaces ? *spaces : std::vector<std::string>{}) {
      auto names = records_.list("repos/" + type + "/" + space);
      for (const auto& name : names ? *names : std::vector<std::string>{}) {
        std::string key = type + "/" + space + "/" + name;
        auto exists = records_.exists(repo_path(key, "repo.json"));
        if (exists && *exists) visit(key);
      }
    }
  }
}

void Ownership::load_locked() {
  // Over a shared store the index may be stale: rebuilt for each question that needs it.
  if (records_.shared()) {
    owners_.clear();
    loaded_ = false;
  }
  if (loaded_) return;
  loaded_ = true;
  for_each_repository([&](const std::string& key) {
    for (const auto& sha : load_repo(key)) owners_[sha].insert(key);
  });
}

bool Ownership::owns(const std::string& repo_key, const std::string& sha256) {
  std::lock_guard<std::mutex> lock(guard_);
  if (records_.shared()) return load_repo(repo_key).count(sha256) > 0;
  load_locked();
  auto it = owners_.find(sha256);
  return it != owners_.end() && it->second.count(repo_key) > 0;
}

std::vector<std::string> Ownership::owners(const std::string& sha256) {
  std::lock_guard<std::mutex> lock(guard_);
  load_locked();
  auto it = owners_.find(sha256);
  if (it == owners_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

util::Status Ownership::add(const std::string& repo_key, const std::vector<std::string>& sha256s) {
  std::lock_guard<std::mutex> lock(guard_);
  std::set<std::string> known;
  bool shared = records_.shared();
  if (shared) {
    known = load_repo(repo_key);  // what this repository owns now, whoever added it
  } else {
    load_locked();
  }
  std::string lines;
  for (const auto& sha : sha256s) {
    if (!is_sha256(sha)) continue;
    bool added = shared ? known.insert(sha).second : owners_[sha].insert(repo_key).second;
    if (added) lines += sha + "\n";
  }
  if (lines.empty()) return {};
  if (!shared) {
    auto exists = records_.exists(repo_path(repo_key, kOwnedRecord));
    if (exists && !*exists) {
      // First additions to a repository from before owned sets: derive its set first, so the
      // record never holds less than its commits reference.
      for (const auto& sha : load_repo(repo_key)) owners_[sha].insert(repo_key);
    }
  }
  return records_.append(repo_path(repo_key, kOwnedRecord), lines);
}

std::set<std::string> Ownership::owned_by(const std::string& repo_key) {
  std::lock_guard<std::mutex> lock(guard_);
  return load_repo(repo_key);
}

std::vector<std::string> Ownership::remove_repo(const std::string& repo_key, const std::set<std::string>& owned) {
  std::lock_guard<std::mutex> lock(guard_);
  std::set<std::string> orphans;
  if (records_.shared()) {
    // What the repository owned, less what any repository owns now (every owned record is read).
    orphans = owned;
    for_each_repository([&](const std::string& key) {
      for (const auto& sha : load_repo(key)) orphans.erase(sha);
    });
    return {orphans.begin(), orphans.end()};
  }
  load_locked();
  for (auto it = owners_.begin(); it != owners_.end();) {
    if (it->second.erase(repo_key) > 0 && it->second.empty()) {
      orphans.insert(it->first);
      it = owners_.erase(it);
    } else {
      ++it;
    }
  }
  if (orphans.empty()) return {};
  // Another process may have given an orphan a new owner: every owned record is read.
  for_each_repository([&](const std::string& key) {
    for (const auto& sha : load_repo(key)) {
      if (orphans.erase(sha) > 0) owners_[sha].insert(key);
    }
  });
  return {orphans.begin(), orphans.end()};
}

}  // namespace kb::hub::storage
