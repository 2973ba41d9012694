// Per-user storage accounting (see usage.h).
#include "hub/storage/usage.h"

#include "hub/storage/directory_records.h"
#include "util/strings.h"

namespace kb::hub::storage {

namespace fs = std::filesystem;

UsageLedger::UsageLedger(fs::path root)
    : owned_records_(std::make_unique<DirectoryRecords>(std::move(root))), records_(owned_records_.get()) {}

UsageLedger::UsageLedger(RecordStore& records) : records_(&records) {}

UsageLedger::Account& UsageLedger::account_locked(const std::string& user) {
  Account& account = accounts_[user];
  if (account.loaded && !records_->shared()) return account;
  auto text = records_->read("usage/" + user);
  if (!text) return account;  // unreadable now: as last read (a charge then fails on its append)
  account.loaded = true;
  account.objects.clear();
  account.charged = 0;
  if (*text) {
    for (const auto& line : util::split(**text, '\n')) {
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

util::Result<std::unique_ptr<RecordLock>> UsageLedger::lock_user(const std::string& user) {
  if (!records_->shared()) return std::unique_ptr<RecordLock>();
  return records_->lock("locks/usage/" + user);
}

util::Status UsageLedger::append_line(const std::string& user, const std::string& lines) {
  auto appended = records_->append("usage/" + user, lines);
  if (!appended) {
    return util::Error(util::ErrorKind::io, "Cannot record storage usage of `" + user + "`")
        .with_cause(appended.error().message);
  }
  return {};
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
  Account& account = accounts_[user];
  account.reserved -= std::min(account.reserved, size);
}

util::Status UsageLedger::discharge(const std::string& sha256) { return discharge(std::vector<std::string>{sha256}); }

util::Status UsageLedger::discharge(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> lock(guard_);
  auto users = records_->list("usage");
  if (!users) return std::move(users).error();
  for (const auto& user : *users) {
    auto held = lock_user(user);
    if (!held) return std::move(held).error();
    Account& account = account_locked(user);
    std::string lines;
    for (const auto& key : keys) {
      auto found = account.objects.find(key);
      if (found == account.objects.end()) continue;
      account.charged -= found->second;
      account.objects.erase(found);
      lines += key + " -\n";
    }
    if (!lines.empty()) KB_TRY(append_line(user, lines));
    if (*held) KB_TRY((*held)->release());
  }
  return {};
}

util::Result<bool> UsageLedger::charge_within(const std::string& user, const std::string& key, uint64_t size,
                                              uint64_t quota) {
  std::lock_guard<std::mutex> lock(guard_);
  auto held = lock_user(user);
  if (!held) return std::move(held).error();
  Account& account = account_locked(user);
  if (account.objects.count(key)) return true;
  uint64_t total = account.charged + account.reserved;
  if (quota != 0 && (size > quota || total > quota - size)) return false;
  account.objects.emplace(key, size);
  account.charged += size;
  KB_TRY(append_line(user, key + " " + std::to_string(size) + "\n"));
  if (*held) KB_TRY((*held)->release());
  return true;
}

util::Status UsageLedger::charge(const std::string& user, const std::string& sha256, uint64_t size) {
  std::lock_guard<std::mutex> lock(guard_);
  auto held = lock_user(user);
  if (!held) return std::move(held).error();
  Account& account = account_locked(user);
  if (!account.objects.emplace(sha256, size).second) return {};
  account.charged += size;
  KB_TRY(append_line(user, sha256 + " " + std::to_string(size) + "\n"));
  if (*held) KB_TRY((*held)->release());
  return {};
}

}  // namespace kb::hub::storage
