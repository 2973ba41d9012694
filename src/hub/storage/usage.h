// Per-user storage accounting for the --quota limit (docs/hub-security.md): a user's usage is
// the sum of the sizes of the distinct objects they have uploaded (LFS bodies, inline commit
// content, xorbs) and of the records their requests added (repositories, commits, refs,
// discussions, Xet file records, benchmark runs; keyed by RepoStore::record_key and the like),
// whatever repositories they went to. Kept in the record usage/<user> ("<sha256> <size>"
// lines, appended durably; backend.h) and cached in memory. Over a shared record store (replicas)
// the cache is re-read under the user's lock ("locks/usage/<user>") before every charge, so the
// quota holds across replicas. Bytes of uploads in progress are reserved (in this process's
// memory) so that parallel uploads cannot overshoot the quota together. An object removed from the store
// (its last repository was deleted) is discharged from every user who was charged for it, with a
// "<sha256> -" line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hub/storage/backend.h"
#include "util/result.h"

namespace kb::hub::storage {

class UsageLedger {
 public:
  // The directory back end: <root>/usage/.
  explicit UsageLedger(std::filesystem::path root);
  // Records in `records`, which outlives this.
  explicit UsageLedger(RecordStore& records);

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
  // The user's account, read from its record when first needed or, over a shared store, every time.
  Account& account_locked(const std::string& user);
  // The user's records lock, over a shared store only (nullptr otherwise: the mutex suffices).
  util::Result<std::unique_ptr<RecordLock>> lock_user(const std::string& user);
  util::Status append_line(const std::string& user, const std::string& lines);

  std::unique_ptr<RecordStore> owned_records_;  // the directory back end of UsageLedger(root)
  RecordStore* records_;
  std::mutex guard_;
  std::map<std::string, Account> accounts_;
};

}  // namespace kb::hub::storage
