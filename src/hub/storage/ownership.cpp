// Owned-object sets of repositories (see ownership.h).
#include "hub/storage/ownership.h"

#include <fcntl.h>
#include <unistd.h>

#include <functional>

#include "hub/storage/commit.h"
#include "util/fs.h"
#include "util/strings.h"

namespace kb::hub::storage {

namespace fs = std::filesystem;

namespace {

constexpr const char* kOwnedFile = "owned";

bool is_sha256(const std::string& text) {
  return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

util::Status append_lines(const fs::path& file, const std::string& lines) {
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return util::Error(util::ErrorKind::io, "Cannot open `" + file.string() + "` for appending");
  size_t done = 0;
  while (done < lines.size()) {
    ssize_t n = ::write(fd, lines.data() + done, lines.size() - done);
    if (n <= 0) {
      ::close(fd);
      return util::Error(util::ErrorKind::io, "Cannot append to `" + file.string() + "`");
    }
    done += static_cast<size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  return {};
}

}  // namespace

Ownership::Ownership(fs::path repos_root) : repos_root_(std::move(repos_root)) {}

std::set<std::string> Ownership::load_repo(const fs::path& dir) {
  std::set<std::string> owned;
  if (auto text = util::read_file(dir / kOwnedFile)) {
    for (const auto& line : util::split(*text, '\n')) {
      if (is_sha256(line)) owned.insert(line);
    }
    return owned;
  }
  // A repository from before owned sets: every object its commits reference.
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir / "commits", ec)) {
    auto bytes = util::read_file(entry.path());
    if (!bytes) continue;
    auto record = parse_commit_record(*bytes);
    if (!record) continue;
    for (const auto& [path, file] : record->snapshot ? record->commit.tree : record->delta.set) owned.insert(file.sha256);
  }
  std::string lines;
  for (const auto& sha : owned) lines += sha + "\n";
  (void)util::write_file_atomic(dir / kOwnedFile, lines);
  return owned;
}

namespace {

// Calls `visit(key, dir)` for every repository under `repos_root` (<type>/<namespace>/<name> with a
// repo.json); key is "<type>/<namespace>/<name>".
void for_each_repository(const fs::path& repos_root,
                         const std::function<void(const std::string&, const fs::path&)>& visit) {
  std::error_code ec;
  for (const auto& type : fs::directory_iterator(repos_root, ec)) {
    std::error_code ec2;
    for (const auto& ns : fs::directory_iterator(type.path(), ec2)) {
      std::error_code ec3;
      for (const auto& repo : fs::directory_iterator(ns.path(), ec3)) {
        if (!fs::exists(repo.path() / "repo.json", ec3)) continue;
        visit(type.path().filename().string() + "/" + ns.path().filename().string() + "/" + repo.path().filename().string(),
              repo.path());
      }
    }
  }
}

}  // namespace

void Ownership::load_locked() {
  if (loaded_) return;
  loaded_ = true;
  for_each_repository(repos_root_, [&](const std::string& key, const fs::path& dir) {
    for (const auto& sha : load_repo(dir)) owners_[sha].insert(key);
  });
}

bool Ownership::owns(const std::string& repo_key, const std::string& sha256) {
  std::lock_guard<std::mutex> lock(guard_);
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
  load_locked();
  std::string lines;
  for (const auto& sha : sha256s) {
    if (!is_sha256(sha)) continue;
    if (owners_[sha].insert(repo_key).second) lines += sha + "\n";
  }
  if (lines.empty()) return {};
  fs::path dir = repos_root_ / repo_key;
  if (!fs::exists(dir / kOwnedFile)) {
    // First additions to a repository from before owned sets: derive its set first, so the
    // file never holds less than its commits reference.
    for (const auto& sha : load_repo(dir)) owners_[sha].insert(repo_key);
  }
  return append_lines(dir / kOwnedFile, lines);
}

std::vector<std::string> Ownership::remove_repo(const std::string& repo_key) {
  std::lock_guard<std::mutex> lock(guard_);
  load_locked();
  std::set<std::string> orphans;
  for (auto it = owners_.begin(); it != owners_.end();) {
    if (it->second.erase(repo_key) > 0 && it->second.empty()) {
      orphans.insert(it->first);
      it = owners_.erase(it);
    } else {
      ++it;
    }
  }
  if (orphans.empty()) return {};
  // Another process may have given an orphan a new owner: every owned file on disk is read.
  for_each_repository(repos_root_, [&](const std::string& key, const fs::path& dir) {
    for (const auto& sha : load_repo(dir)) {
      if (orphans.erase(sha) > 0) owners_[sha].insert(key);
    }
  });
  return {orphans.begin(), orphans.end()};
}

}  // namespace kb::hub::storage
