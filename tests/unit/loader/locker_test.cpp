// lock_dependency against a fake Hub: the Hub's "not found" answers are told apart by the error's
// code (util::Error::code), whatever the message says.
#include "loader/locker.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kb::loader {
namespace {

const std::string kCommit(40, 'c');

class FakeHub final : public HubReader {
 public:
  util::Error status_error{util::ErrorKind::not_found, "no such file"};
  int downloads = 0;

  util::Result<std::vector<Branch>> list_branches(RepoType, const std::string&) override {
    return std::vector<Branch>{{"main", kCommit}, {"v1", kCommit}};
  }
  util::Result<std::string> revision_sha(RepoType, const std::string&, const std::string&) override { return kCommit; }
  util::Result<std::vector<TreeEntry>> list_tree(RepoType, const std::string&, const std::string&, const std::string&,
                                                 bool) override {
    return std::vector<TreeEntry>{{false, "build/torch-cpu/__init__.py", std::string(40, 'a'), 3, std::nullopt}};
  }
  util::Result<FetchedFile> download(RepoType, const std::string&, const std::string&, const std::string&,
                                     const std::filesystem::path&) override {
    ++downloads;
    return status_error;  // kernel-status.toml, the only file lock_dependency downloads
  }
  util::Result<FetchedFile> head(RepoType, const std::string&, const std::string&, const std::string&) override {
    return util::Error(util::ErrorKind::generic, "not used");
  }
  util::Result<bool> trusted_publisher(const std::string&) override { return true; }
  std::optional<util::Result<std::vector<BulkFile>>> download_directory(RepoType, const std::string&,
                                                                        const std::string&, const std::string&,
                                                                        const std::filesystem::path&) override {
    return std::nullopt;
  }
};

TEST(lock_dependency, a_missing_status_file_is_told_by_the_error_code) {
  for (const char* code : {"EntryNotFound", "RepoNotFound"}) {
    FakeHub hub;
    // The message names neither code nor status (no "X-Error-Code: …" cause either).
    hub.status_error.code = code;
    auto lock = lock_dependency(hub, "acme/relu", 1);
    ASSERT_TRUE(lock.ok()) << code << ": " << lock.error().message;
    EXPECT_EQ(hub.downloads, 1);
    EXPECT_EQ(lock->repo_id, "acme/relu");
    EXPECT_EQ(lock->sha, kCommit);
  }
}

TEST(lock_dependency, other_errors_of_the_status_file_stop_it) {
  FakeHub hub;
  // A message that reads like a missing entry, but without the code: not a missing file.
  hub.status_error = util::Error(util::ErrorKind::not_found, "HTTP 404: EntryNotFound")
                         .with_cause("X-Error-Code: EntryNotFound");
  auto lock = lock_dependency(hub, "acme/relu", 1);
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.error().message, "HTTP 404: EntryNotFound");

  FakeHub offline;
  offline.status_error = util::Error(util::ErrorKind::network, "Request failed");
  EXPECT_FALSE(lock_dependency(offline, "acme/relu", 1).ok());
}

}  // namespace
}  // namespace kb::loader
