// lock_dependency: the lock entry of one [tool.kernels.dependencies] item.
#include "loader/locker.h"

#include "hub/protocol/error_codes.h"
#include "hub/protocol/names.h"
#include "loader/hub_input.h"
#include "loader/kernel_status.h"
#include "util/fs.h"

namespace kb::loader {

util::Result<KernelLock> lock_dependency(HubReader& hub, const std::string& repo_id, int version) {
  KB_TRY(hub::protocol::check_repo_id(repo_id));
  std::string repo = repo_id;
  {
    util::TempDir tmp("kb-lock");
    auto status = hub.download(RepoType::kernel, repo, "main", "kernel-status.toml", tmp.path() / "status");
    if (status) {
      auto text = util::read_file(tmp.path() / "status");
      if (!text) return std::move(text).error();
      auto redirect = parse_kernel_status(*text);
      if (!redirect) return std::move(redirect).error();
      if (auto valid = check_kernel_request(redirect->destination, redirect->revision); !valid) {
        return valid.error().context("Refusing the kernel-status.toml redirect of `" + repo_id + "`");
      }
      repo = redirect->destination;
    } else {
      const std::string& code = status.error().code;
      if (code != hub::protocol::error_code::kEntryNotFound && code != hub::protocol::error_code::kRepoNotFound) {
        return std::move(status).error();
      }
    }
  }
  auto branches = hub.list_branches(RepoType::kernel, repo);
  if (!branches) return std::move(branches).error();
  std::string branch = hub::protocol::version_branch(version);
  std::optional<std::string> commit;
  for (const auto& b : *branches) {
    if (b.name == branch) commit = b.commit;
  }
  if (!commit) {
    return util::Error(util::ErrorKind::not_found, "Version " + std::to_string(version) + " of " + repo + " not found");
  }
  auto sha = hub.revision_sha(RepoType::kernel, repo, *commit);
  if (!sha) return std::move(sha).error();
  auto tree = hub.list_tree(RepoType::kernel, repo, *sha, "", true);
  if (!tree) return std::move(tree).error();
  std::vector<TreeFile> files;
  for (const auto& entry : *tree) {
    if (!entry.is_directory) files.push_back(TreeFile{entry.path, entry.etag()});
  }
  KernelLock lock;
  lock.repo_id = repo;
  lock.sha = *sha;
  lock.variants = compute_variant_locks(files);
  return lock;
}

}  // namespace kb::loader
