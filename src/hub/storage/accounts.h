// Users, organizations and tokens of the Hub server, kept in the record accounts.json (versioned;
// backend.h). Only SHA-256 digests of tokens are stored, so the record never holds a usable secret.
// Every lookup reads the record and re-parses it when its bytes changed, so `kernel-hub user add`
// works while a server runs, and an account changed through one replica is seen by all.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "hub/storage/backend.h"
#include "util/result.h"

namespace kb::hub::storage {

struct Organization {
  std::string name;
  bool trusted = false;  // trustedKernelPublisher
};

struct User {
  std::string name;
  std::vector<std::string> orgs;
  std::vector<std::string> token_digests;  // sha256 hex of each token
};

struct AccountsSnapshot {
  std::map<std::string, Organization> orgs;
  std::map<std::string, User> users;
};

inline constexpr int kAccountsFormatVersion = 1;

class Accounts {
 public:
  // The directory back end: <root>/accounts.json.
  explicit Accounts(std::filesystem::path root);
  // Records in `records`, which outlives this.
  explicit Accounts(RecordStore& records);

  // Administration (CLI). Both take the accounts lock ("accounts.lock").
  util::Status add_org(const std::string& name, bool trusted);
  // Creates the user if needed, adds the orgs, and returns a fresh token.
  util::Result<std::string> add_user(const std::string& name, const std::vector<std::string>& orgs);

  // Takes the user out of the organizations (CLI): from the next request on, nothing the user
  // holds (Hub tokens, Xet tokens) reaches those organizations' repositories as a member.
  util::Status remove_from_orgs(const std::string& name, const std::vector<std::string>& orgs);

  // Lookups (server); cheap when the file has not changed. Every request reads the accounts as
  // they are now (docs/hub-security.md, "Authorization").
  std::optional<User> user_for_token(const std::string& token);
  std::optional<User> user(const std::string& name);
  std::optional<Organization> organization(const std::string& name);
  // The user may write to (and read private repos of) this namespace.
  static bool is_member(const User& user, const std::string& name_space);

 private:
  util::Result<AccountsSnapshot> load() const;
  util::Status save(const AccountsSnapshot& snapshot) const;
  // Runs `edit(snapshot)` for the organization (`org`) or user `name` on the accounts read under
  // the accounts lock, once `name` is known to be a valid name that no account of the other kind
  // has (organizations and users share one namespace); returns what `edit` returns.
  template <typename Edit>
  auto edit_account(const std::string& name, bool org, Edit edit);
  void refresh();

  std::unique_ptr<RecordStore> owned_records_;  // the directory back end of Accounts(root)
  RecordStore* records_;
  std::mutex guard_;
  AccountsSnapshot cached_;
  std::optional<std::string> cached_text_;  // the record's bytes cached_ was parsed from
  bool loaded_ = false;
};

std::string new_token();

}  // namespace kb::hub::storage
