// Test helpers of the RepoStore tests: an add operation whose content is already stored, and the
// HTTP answer (status, Hub error code) a storage error carries.
#pragma once

#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "hub/storage/repo_store.h"

namespace kb::hub::storage::testing {

inline Operation add(RepoStore& store, const std::string& path, const std::string& content) {
  auto info = store.objects().put_bytes(content);
  EXPECT_TRUE(info.ok());
  return Operation{OperationKind::add, path, TreeEntry{info->git_oid, info->sha256, info->size, false}};
}

using Answer = std::pair<int, std::string>;
inline Answer answer(const util::Error& error) { return {error.status, error.code}; }
inline const Answer kRepoNotFound{404, "RepoNotFound"};
inline const Answer kRevisionNotFound{404, "RevisionNotFound"};
inline const Answer kEntryNotFound{404, "EntryNotFound"};
inline const Answer kDiscussionNotFound{404, ""};
inline const Answer kConflict{409, ""};
inline const Answer kStaleParent{412, ""};
inline const Answer kInvalid{400, ""};
inline const Answer kForbidden{403, ""};

}  // namespace kb::hub::storage::testing
