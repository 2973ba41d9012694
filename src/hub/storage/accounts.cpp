// Accounts file: load/save with a lock, token generation and lookups.
#include "hub/storage/accounts.h"

#include <algorithm>
#include <random>

#include <nlohmann/json.hpp>

#include "hub/storage/directory_records.h"
#include "hub/storage/repo_store.h"
#include "util/hash.h"

namespace kb::hub::storage {

namespace fs = std::filesystem;
using nlohmann::json;

std::string new_token() {
  static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device device;  // non-deterministic source (getrandom on Linux)
  std::uniform_int_distribution<size_t> pick(0, sizeof(alphabet) - 2);
  std::string token = "hf_";
  for (int i = 0; i < 34; ++i) token += alphabet[pick(device)];
  return token;
}

namespace {

constexpr const char* kAccountsRecord = "accounts.json";
constexpr const char* kAccountsLock = "accounts.lock";

util::Result<AccountsSnapshot> parse_accounts(const std::string& text) {
  AccountsSnapshot snapshot;
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || doc.value("format_version", 0) != kAccountsFormatVersion) {
    return util::Error(util::ErrorKind::config, std::string("Unsupported or corrupt accounts record `") +
                                                    kAccountsRecord + "`");
  }
  const json empty = json::object();
  const json& org_list = doc.contains("orgs") && doc["orgs"].is_object() ? doc["orgs"] : empty;
  const json& user_list = doc.contains("users") && doc["users"].is_object() ? doc["users"] : empty;
  for (const auto& [name, o] : org_list.items()) {
    snapshot.orgs[name] = Organization{name, o.value("trusted", false)};
  }
  for (const auto& [name, u] : user_list.items()) {
    User user{name, u.value("orgs", std::vector<std::string>{}),
              u.value("token_sha256", std::vector<std::string>{})};
    snapshot.users[name] = std::move(user);
  }
  return snapshot;
}

}  // namespace

Accounts::Accounts(fs::path root)
    : owned_records_(std::make_unique<DirectoryRecords>(std::move(root))), records_(owned_records_.get()) {}

Accounts::Accounts(RecordStore& records) : records_(&records) {}

util::Result<AccountsSnapshot> Accounts::load() const {
  auto text = records_->read(kAccountsRecord);
  if (!text) return std::move(text).error();
  if (!*text) return AccountsSnapshot{};
  return parse_accounts(**text);
}

util::Status Accounts::save(const AccountsSnapshot& snapshot) const {
  json orgs = json::object();
  for (const auto& [name, org] : snapshot.orgs) orgs[name] = {{"trusted", org.trusted}};
  json users = json::object();
  for (const auto& [name, user] : snapshot.users) {
    users[name] = {{"orgs", user.orgs}, {"token_sha256", user.token_digests}};
  }
  json doc = {{"format_version", kAccountsFormatVersion}, {"orgs", orgs}, {"users", users}};
  return records_->write(kAccountsRecord, doc.dump(2) + "\n");
}

template <typename Edit>
auto Accounts::edit_account(const std::string& name, bool org, Edit edit) {
  using Answer = decltype(edit(std::declval<AccountsSnapshot&>()));
  if (!RepoStore::valid_name(name)) {
    return Answer(util::Error(util::ErrorKind::usage, std::string("Invalid ") + (org ? "organization" : "user") +
                                                          " name `" + name + "`"));
  }
  auto held = records_->lock(kAccountsLock);
  if (!held) return Answer(held.error());
  auto snapshot = load();
  if (!snapshot) return Answer(snapshot.error());
  if (org ? snapshot->users.count(name) > 0 : snapshot->orgs.count(name) > 0) {
    return Answer(util::Error(util::ErrorKind::usage,
                              "`" + name + "` is already " + (org ? "a user name" : "an organization name")));
  }
  Answer answer = edit(*snapshot);
  if (auto released = (*held)->release(); !released && answer) return Answer(released.error());
  return answer;
}

util::Status Accounts::add_org(const std::string& name, bool trusted) {
  return edit_account(name, true, [&](AccountsSnapshot& snapshot) -> util::Status {
    snapshot.orgs[name] = Organization{name, trusted};
    return save(snapshot);
  });
}

util::Result<std::string> Accounts::add_user(const std::string& name, const std::vector<std::string>& orgs) {
  return edit_account(name, false, [&](AccountsSnapshot& snapshot) -> util::Result<std::string> {
    User& user = snapshot.users[name];
    user.name = name;
    for (const auto& org : orgs) {
      if (!snapshot.orgs.count(org)) {
        return util::Error(util::ErrorKind::usage, "Unknown organization `" + org + "`")
            .with_hint("create it first with `kernel-hub org add " + org + " --root <DIR>`");
      }
      if (std::find(user.orgs.begin(), user.orgs.end(), org) == user.orgs.end()) user.orgs.push_back(org);
    }
    std::string token = new_token();
    user.token_digests.push_back(util::sha256_hex(token));
    KB_TRY(save(snapshot));
    return token;
  });
}

util::Status Accounts::remove_from_orgs(const std::string& name, const std::vector<std::string>& orgs) {
  auto held = records_->lock(kAccountsLock);
  if (!held) return std::move(held).error();
  auto snapshot = load();
  if (!snapshot) return std::move(snapshot).error();
  auto it = snapshot->users.find(name);
  if (it == snapshot->users.end()) return util::Error(util::ErrorKind::usage, "Unknown user `" + name + "`");
  User& user = it->second;
  for (const auto& org : orgs) {
    auto member = std::find(user.orgs.begin(), user.orgs.end(), org);
    if (member == user.orgs.end()) {
      return util::Error(util::ErrorKind::usage, "User `" + name + "` is not a member of `" + org + "`");
    }
    user.orgs.erase(member);
  }
  KB_TRY(save(*snapshot));
  return (*held)->release();
}

std::optional<User> Accounts::user(const std::string& name) {
  std::lock_guard<std::mutex> guard(guard_);
  refresh();
  auto it = cached_.users.find(name);
  if (it == cached_.users.end()) return std::nullopt;
  return it->second;
}

void Accounts::refresh() {
  auto text = records_->read(kAccountsRecord);
  if (!text) return;  // unreadable now: the accounts as last read
  if (loaded_ && *text == cached_text_) return;
  if (!*text) {
    cached_ = {};
  } else if (auto snapshot = parse_accounts(**text)) {
    cached_ = std::move(*snapshot);
  } else {
    return;
  }
  cached_text_ = std::move(*text);
  loaded_ = true;
}

std::optional<User> Accounts::user_for_token(const std::string& token) {
  if (token.empty()) return std::nullopt;
  std::string digest = util::sha256_hex(token);
  std::lock_guard<std::mutex> guard(guard_);
  refresh();
  for (const auto& [name, user] : cached_.users) {
    for (const auto& d : user.token_digests) {
      if (d == digest) return user;
    }
  }
  return std::nullopt;
}

std::optional<Organization> Accounts::organization(const std::string& name) {
  std::lock_guard<std::mutex> guard(guard_);
  refresh();
  auto it = cached_.orgs.find(name);
  if (it == cached_.orgs.end()) return std::nullopt;
  return it->second;
}

bool Accounts::is_member(const User& user, const std::string& name_space) {
  return user.name == name_space || std::find(user.orgs.begin(), user.orgs.end(), name_space) != user.orgs.end();
}

}  // namespace kb::hub::storage
