// Test helper of the RepoStore tests: an add operation whose content is already stored.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "hub/storage/repo_store.h"

namespace kb::hub::storage::testing {

inline Operation add(RepoStore& store, const std::string& path, const std::string& content) {
  auto info = store.objects().put_bytes(content);
  EXPECT_TRUE(info.ok());
  return Operation{OperationKind::add, path, TreeEntry{info->git_oid, info->sha256, info->size, false}};
}

}  // namespace kb::hub::storage::testing
