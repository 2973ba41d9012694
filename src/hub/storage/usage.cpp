// Per-user storage accounting (see usage.h).
#include "hub/storage/usage.h"

#include <fcntl.h>
#include <unistd.h>

#include "util/fs.h"
#include "util/strings.h"

namespace kb::hub::storage {

namespace fs = std::filesystem;

UsageLedger::UsageLedger(fs::path root) : dir_(std::move(root) / "usage") {}

UsageLedger::Account& UsageLedger::account_locked(const std::string& user) {
  Account& account = accounts_[user];
  if (account.loaded) return account;
  account.loaded = true;
  if (auto text = util::read_file(dir_ / user)) {
    for (const auto& line : util::split(*text, '\n')) {
      auto space = line.find(' ');
      if (space != 64) continue;
      if (line.compare(space + 1, std::string::npos, "-") == 0) {
        auto found = account.objects.find(line.substr(0, 64));
        if (found != account.objects.end()) {
          account.charged -= found->second;
          account.objects.erase(found);
        }
        continue;
      }
      uint64_t size = std::strtoull(line.c_str() + space + 1, nullptr, 10);
      if (account.objects.emplace(line.substr(0, 64), size).second) account.charged += size;
    }
  }
  return account;
}

uint64_t UsageLedger::used(const std::string& user) {
  std::lock_guard<std::mutex> lock(guard_);
  Account& account = account_locked(user);
  return account.charged + account.reserved;
}

bool UsageLedger::has(const std::string& user, const std::string& sha256) {
  std::lock_guard<std::mutex> lock(guard_);
  return account_locked(user).objects.count(sha256) > 0;
}

bool UsageLedger::reserve(const std::string& user, uint64_t size, uint64_t quota) {
  std::lock_guard<std::mutex> lock(guard_);
  Account& account = account_locked(user);
  uint64_t total = account.charged + account.reserved;
  if (quota != 0 && (size > quota || total > quota - size)) return false;
  account.reserved += size;
  return true;
}

void UsageLedger::release(const std::string& user, uint64_t size) {
  std::lock_guard<std::mutex> lock(guard_);
  Account& account = account_locked(user);
  account.reserved -= std::min(account.reserved, size);
}

namespace {

util::Status append_line(const fs::path& file, const std::string& line, const std::string& user) {
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return util::Error(util::ErrorKind::io, "Cannot record storage usage of `" + user + "`");
  bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::fsync(fd);
  ::close(fd);
  if (!ok) return util::Error(util::ErrorKind::io, "Cannot record storage usage of `" + user + "`");
  return {};
}

}  // namespace

util::Status UsageLedger::discharge(const std::string& sha256) { return discharge(std::vector<std::string>{sha256}); }

util::Status UsageLedger::discharge(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> lock(guard_);
  std::error_code ec;
  for (const auto& file : fs::directory_iterator(dir_, ec)) {
    std::string user = file.path().filename().string();
    Account& account = account_locked(user);
    std::string lines;
    for (const auto& key : keys) {
      auto found = account.objects.find(key);
      if (found == account.objects.end()) continue;
      account.charged -= found->second;
      account.objects.erase(found);
      lines += key + " -\n";
    }
    if (!lines.empty()) KB_TRY(append_line(file.path(), lines, user));
  }
  return {};
}

util::Result<bool> UsageLedger::charge_within(const std::string& user, const std::string& key, uint64_t size,
                                              uint64_t quota) {
  std::lock_guard<std::mutex> lock(guard_);
  Account& account = account_locked(user);
  if (account.objects.count(key)) return true;
  uint64_t total = account.charged + account.reserved;
  if (quota != 0 && (size > quota || total > quota - size)) return false;
  account.objects.emplace(key, size);
  account.charged += size;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  KB_TRY(append_line(dir_ / user, key + " " + std::to_string(size) + "\n", user));
  return true;
}

util::Status UsageLedger::charge(const std::string& user, const std::string& sha256, uint64_t size) {
  std::lock_guard<std::mutex> lock(guard_);
  Account& account = account_locked(user);
  if (!account.objects.emplace(sha256, size).second) return {};
  account.charged += size;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  return append_line(dir_ / user, sha256 + " " + std::to_string(size) + "\n", user);
}

}  // namespace kb::hub::storage
