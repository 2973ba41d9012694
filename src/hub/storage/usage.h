// Per-user storage accounting for the --quota limit (docs/hub-security.md): a user's usage is
// the sum of the sizes of the distinct objects they have uploaded (LFS bodies, inline commit
// content, xorbs) and of the records their requests added (repositories, commits, refs,
// discussions, Xet file records, benchmark runs; keyed by RepoStore::record_key and the like),
// whatever repositories they went to. Kept in <root>/usage/<user> ("<sha256> <size>"
// lines, appended and fsynced) and cached in memory. Bytes of uploads in progress are reserved
// so that parallel uploads cannot overshoot the quota together. An object removed from the store
// (its last repository was deleted) is discharged from every user who was charged for it, with a
// "<sha256> -" line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "util/result.h"

namespace kb::hub::storage {

class UsageLedger {
 public:
  explicit UsageLedger(std::filesystem::path root);

  // Bytes charged to the user plus their reservations.
  uint64_t used(const std::string& user);
  bool has(const std::string& user, const std::string& sha256);
  // Reserves `size` bytes if used + size <= quota (quota 0: unlimited); false otherwise.
  bool reserve(const std::string& user, uint64_t size, uint64_t quota);
  void release(const std::string& user, uint64_t size);
  // Charges an object to the user once (no-op if already charged).
  util::Status charge(const std::string& user, const std::string& sha256, uint64_t size);
  // Charges `key` to the user once, if used + size stays within `quota` (0: unlimited); false
  // (nothing charged) otherwise. One step, so that parallel requests cannot overshoot together.
  util::Result<bool> charge_within(const std::string& user, const std::string& key, uint64_t size, uint64_t quota);
  // Releases a removed object from every user charged for it.
  util::Status discharge(const std::string& sha256);
  // The same for many keys, reading each user's ledger once.
  util::Status discharge(const std::vector<std::string>& keys);

 private:
  struct Account {
    bool loaded = false;
    std::map<std::string, uint64_t> objects;
    uint64_t charged = 0;
    uint64_t reserved = 0;
  };
  Account& account_locked(const std::string& user);

  std::filesystem::path dir_;
  std::mutex guard_;
  std::map<std::string, Account> accounts_;
};

}  // namespace kb::hub::storage
