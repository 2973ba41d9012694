// Installer::resolve_version (docs/python-api.md): `version=N` → the head commit of branch `vN`.
#include <algorithm>

#include "loader/versions.h"

#include "hub/protocol/names.h"
#include "loader/installer.h"
#include "util/strings.h"

namespace kb::loader {

std::vector<std::pair<int, std::string>> version_branches(const std::vector<Branch>& branches) {
  std::vector<std::pair<int, std::string>> versions;
  for (const auto& branch : branches) {
    if (auto n = hub::protocol::parse_version_branch(branch.name)) versions.emplace_back(*n, branch.commit);
  }
  std::sort(versions.begin(), versions.end());
  return versions;
}

util::Error version_not_found(int version, const std::vector<std::pair<int, std::string>>& versions) {
  std::vector<std::string> available;
  for (const auto& v : versions) available.push_back(std::to_string(v.first));
  return util::Error(util::ErrorKind::usage, "Version " + std::to_string(version) +
                                                 " not found, available versions: " + util::join(available, ", "));
}

util::Result<std::string> Installer::resolve_version(const std::string& repo_id, int version, bool offline,
                                                     std::optional<std::string>& warning) {
  KB_TRY(hub::protocol::check_repo_id(repo_id));
  std::vector<std::pair<int, std::string>> versions;
  if (offline) {
    // KERNELS_CACHE is re-read per call here, then the huggingface_hub default; both folder kinds.
    for (const auto& root : {default_cache_root(), hf_hub_cache_root(), root_}) {
      for (auto type : {RepoType::kernel, RepoType::model}) {
        for (const auto& v : RepoCache(root, type, repo_id).cached_versions()) {
          if (std::none_of(versions.begin(), versions.end(), [&](const auto& x) { return x.first == v.first; })) {
            versions.push_back(v);
          }
        }
      }
    }
    if (versions.empty()) {
      return util::Error(util::ErrorKind::usage,
                         "Version " + std::to_string(version) + " of '" + repo_id +
                             "' is not available in the local cache and Hugging Face Hub is in offline mode. "
                             "Download the kernel while online first, or pass an explicit `revision=<commit>`.");
    }
  } else {
    if (hub_ == nullptr) return util::Error(util::ErrorKind::generic, "No Hub client configured");
    KB_TRY_ASSIGN(auto branches, hub_->list_branches(RepoType::kernel, repo_id));
    versions = version_branches(branches);
  }
  std::sort(versions.begin(), versions.end());
  auto it = std::find_if(versions.begin(), versions.end(), [&](const auto& v) { return v.first == version; });
  if (it == versions.end()) return version_not_found(version, versions);
  if (!versions.empty() && versions.back().first > version) {
    warning = "You are using version " + std::to_string(version) + " of '" + repo_id + "', but version " +
              std::to_string(versions.back().first) + " is available.";
  }
  if (!offline) (void)RepoCache(root_, RepoType::kernel, repo_id).write_ref(hub::protocol::version_branch(version), it->second);
  return it->second;
}

}  // namespace kb::loader
