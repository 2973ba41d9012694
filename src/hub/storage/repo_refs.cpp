// Tags and branch deletion of the repository store.
#include "hub/storage/repo_store.h"

#include "hub/protocol/names.h"
#include "hub/storage/repo_store_internal.h"
#include "hub/storage/revisions.h"
#include "hub/storage/storage_errors.h"

namespace kb::hub::storage {

util::Result<std::string> RepoStore::delete_branch(const RepoId& repo, const std::string& branch) {
  return edit_refs(repo, [&](Refs& refs) -> util::Result<std::string> {
    std::string name = branch_name(branch);
    if (name == "main") return forbidden("Cannot delete the default branch `main`");
    auto it = refs.branches.find(name);
    if (it == refs.branches.end()) return revision_not_found("Invalid rev id: " + branch);
    std::string head = it->second;
    refs.branches.erase(it);
    if (auto s = write_refs(repo, refs); !s) return storage_failure(s.error());
    return head;
  });
}

util::Result<std::string> RepoStore::create_tag(const RepoId& repo, const std::string& tag, const std::string& revision,
                                                const ChargeRecord& charge) {
  return edit_refs(repo, [&](Refs& refs) -> util::Result<std::string> {
    std::string name = tag_name(tag);
    if (auto s = protocol::check_ref_name(name); !s) return invalid_request(s.error().message);
    if (refs.tags.count(name)) return conflict("Tag `" + name + "` already exists");
    auto target = resolve(repo, revision);
    if (!target.ok()) return target.error();
    if (charge) KB_TRY(charge(ref_record_key(repo, true, name), ref_bytes(name)));
    refs.tags[name] = *target;
    if (auto s = write_refs(repo, refs); !s) return storage_failure(s.error());
    return *target;
  });
}

util::Result<std::string> RepoStore::delete_tag(const RepoId& repo, const std::string& tag) {
  return edit_refs(repo, [&](Refs& refs) -> util::Result<std::string> {
    auto it = refs.tags.find(tag_name(tag));
    if (it == refs.tags.end()) return revision_not_found("Invalid rev id: " + tag);
    std::string target = it->second;
    refs.tags.erase(it);
    if (auto s = write_refs(repo, refs); !s) return storage_failure(s.error());
    return target;
  });
}

}  // namespace kb::hub::storage
