// Internal to the repository store's sources (repo_*.cpp): edit_refs, the "repository exists, lock
// it, read its refs" step of every ref change.
#pragma once

#include <utility>

#include "hub/storage/repo_store.h"

namespace kb::hub::storage {

template <typename Edit>
auto RepoStore::edit_refs(const RepoId& repo, Edit edit) {
  using Answer = decltype(edit(std::declval<Refs&>()));
  auto info = repo_info(repo);
  if (!info.ok()) return Answer(info.error());
  auto held = lock_repo(repo);
  if (!held) return Answer(held.error());
  auto current = read_refs(repo);
  if (!current.ok()) return Answer(current.error());
  Answer answer = edit(*current);
  if (auto released = (*held)->release(); !released && answer.ok()) return Answer(storage_failure(released.error()));
  return answer;
}

}  // namespace kb::hub::storage
