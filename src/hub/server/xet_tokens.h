// Credentials of kernel-hub's Xet storage service (docs/hub-xet.md, docs/hub-security.md):
// short-lived access tokens bound to one repository and a read or write scope, and signed URLs
// for byte ranges of stored xorbs. Both are HMAC-SHA256 over their fields with the Hub's secret
// (<root>/xet/secret, 32 random bytes created 0600 on first use), so every server process on
// one root accepts them, nothing is stored per token, and a restart does not log clients out.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hub/storage/repo_store.h"
#include "util/result.h"

namespace kb::hub::server {

enum class XetScope { read, write };

// What a token allows: `scope` on `repo`, as `user` (empty: anonymous), until `expires` (unix
// seconds). It carries no memberships: every request checks the user's access as it is now
// (docs/hub-security.md, "Xet storage"). `pull_request`: a write token issued to a reader for a
// pull request (create_pr), which needs read access only.
struct XetGrant {
  XetScope scope = XetScope::read;
  storage::RepoId repo;
  std::string user;
  int64_t expires = 0;
  bool pull_request = false;
};

// Byte ranges [first, last] of one stored xorb that a signed URL admits, until `expires`, to the
// holder of the token it was handed out for: `repo` and `user` are signed with it, so the data
// route checks that the user still reads the repository and that it still references the xorb.
struct XorbRangeGrant {
  std::string xorb;  // hash, string form
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  int64_t expires = 0;
  storage::RepoId repo;
  std::string user;
  // Whether [first, last] lies inside one of the ranges.
  bool admits(uint64_t first, uint64_t last) const;
};

class XetCredentials {
 public:
  // Reads the Hub's secret, creating it first if needed: <root>/xet/secret (mode 0600).
  static util::Result<XetCredentials> open(const std::filesystem::path& root);
  // The same from the record xet/secret, which every replica sharing `records` reads, so a token
  // one replica signed verifies on all (the directory back end: the file above, as before).
  static util::Result<XetCredentials> open(storage::RecordStore& records);

  std::string issue(const XetGrant& grant) const;
  // The grant of a token this Hub issued and that has not expired at `now`; nothing otherwise.
  std::optional<XetGrant> verify(std::string_view token, int64_t now) const;

  // "range=<first>-<last>[,<first>-<last>...]&expires=<t>&repo=<type>s/<ns>/<name>&user=<u>&sig=<hex>":
  // the query of a xorb URL.
  std::string sign_range(const XorbRangeGrant& grant) const;
  // The grant of a query string made by sign_range for `xorb`, if its signature holds and it has
  // not expired at `now`.
  std::optional<XorbRangeGrant> verify_range(const std::string& xorb, const std::string& range,
                                             const std::string& expires, const std::string& repo,
                                             const std::string& user, const std::string& signature,
                                             int64_t now) const;

 private:
  explicit XetCredentials(std::string secret) : secret_(std::move(secret)) {}
  std::string mac(std::string_view purpose, std::string_view message) const;

  std::string secret_;
};

int64_t unix_now();

}  // namespace kb::hub::server
