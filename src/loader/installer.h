// install_kernel (docs/python-api.md): redirect handling, variant selection, download into the shared
// cache, verification and receipts — online, or from the cache alone when offline.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "loader/cache_layout.h"
#include "loader/hub_reader.h"
#include "loader/selection.h"
#include "metadata/metadata.h"
#include "util/result.h"

namespace kb::loader {

struct InstallRequest {
  std::string repo_id;
  std::string revision;
  bool local_files_only = false;
  SystemInfo system;
  // Called with the chosen variant's metadata before anything else is fetched.
  std::function<util::Status(const metadata::Metadata&, const std::string& variant)> validate_dependencies;
  // Locked variant hashes (variant → "sha256-…"); the chosen variant's is verified when present.
  std::map<std::string, std::string> lock_hashes;
  std::optional<std::string> lock_hash_for(const std::string& variant) const {
    auto it = lock_hashes.find(variant);
    if (it == lock_hashes.end()) return std::nullopt;
    return it->second;
  }
};

struct InstallResult {
  std::filesystem::path variant_path;
  std::string repo_id;   // after redirects
  std::string commit;
  std::string variant;
  std::vector<std::string> user_warnings;  // to be raised as UserWarning by the caller
  bool from_receipt = false;                // warm load: nothing re-hashed
  std::vector<std::string> invalid_variants;  // unparsable build/ names of a Hub listing (logged)
  std::string fallback_warning;               // the CPU fallback chose the variant (warned once)
};

class Installer {
 public:
  // `hub` may be null when only offline installs are requested.
  Installer(std::filesystem::path cache_root, HubReader* hub);

  util::Result<InstallResult> install(const InstallRequest& request);
  // Every parsable variant of `build/` at `revision` and the resulting decisions (online).
  util::Result<VariantListing> variants_at(const std::string& repo_id, const std::string& revision,
                                      const SystemInfo& system);
  // Resolves `version=N` to a commit (online: branches, writing refs/v<N>; offline: refs/v<N>
  // files of the cache folders). `warning` receives the "outdated version" text when relevant.
  // Downloads and verifies every variant of `build/` at `revision` (`kernels download --all-variants`,
  // `kernels verify-signature --all-variants`); returns their directories in the cache.
  util::Result<std::vector<std::filesystem::path>> install_all_variants(const std::string& repo_id,
                                                                        const std::string& revision);
  util::Result<std::string> resolve_version(const std::string& repo_id, int version, bool offline,
                                            std::optional<std::string>& warning);

 private:
  util::Result<InstallResult> install_online(const InstallRequest& request, int depth);
  util::Result<InstallResult> install_offline(const InstallRequest& request);
  // `metadata_blob`: the variant's metadata.json already fetched into the blob store (its etag).
  util::Status ensure_variant(const RepoCache& cache, const std::string& commit, const std::string& variant,
                             const InstallRequest& request, const std::optional<std::string>& metadata_blob = {});
  // The best variant of `names` for `system` that runs on its device (arch_check.h): a candidate's
  // metadata.json comes from its verified snapshot, else is fetched into the blob store alone (its
  // etag kept in `fetched`), so a skipped variant is never downloaded.
  util::Result<Selection> choose_online(const RepoCache& cache, const std::string& commit,
                                        const std::vector<std::string>& names, const SystemInfo& system,
                                        std::map<std::string, std::string>& fetched);
  util::Result<std::vector<std::string>> build_listing(const RepoCache& cache, const std::string& commit);
  util::Result<std::vector<TreeEntry>> variant_files(const RepoCache& cache, const std::string& commit,
                                                     const std::string& variant);
  util::Status fetch_variant(const RepoCache& cache, const std::string& commit, const std::string& variant,
                             const std::vector<TreeEntry>& files);
  util::Result<FetchedFile> fetch_file(const RepoCache& cache, const std::string& revision,
                                       const std::string& path, const std::optional<TreeEntry>& entry);

  std::filesystem::path root_;
  HubReader* hub_;
};

}  // namespace kb::loader
