// Installer: the online and offline paths of install_kernel and the revision/version helpers.
// Request budget: a commit already verified in the cache costs no request at all (the build/
// listing, the kernel-status.toml answer and the variant files are immutable per commit).
#include "loader/installer.h"

#include <algorithm>

#include "hub/protocol/error_codes.h"
#include "hub/protocol/names.h"
#include "loader/arch_check.h"
#include "loader/blob_store.h"
#include "loader/cache_path.h"
#include "loader/file_lock.h"
#include "loader/hub_input.h"
#include "loader/kernel_status.h"
#include "loader/kernels_minver.h"
#include "loader/local_kernel.h"
#include "loader/receipt.h"
#include "loader/verification.h"
#include "metadata/digest.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/strings.h"

namespace kb::loader {
namespace {

namespace fs = std::filesystem;
using util::Error;
using util::ErrorKind;

constexpr const char* kStatusFile = "kernel-status.toml";

Error no_variant(const InstallRequest& request, const std::vector<std::string>& names, const Selection& selection) {
  return no_variant_error(VariantSource{request.repo_id + " (revision: " + request.revision + ")", false}, names,
                          selection, request.system);
}

bool excluded(const std::string& path) {
  if (util::ends_with(path, ".pyc")) return true;
  for (const auto& part : util::split(path, '/')) {
    if (part == "__pycache__") return true;
  }
  return false;
}

// Lock names come from commit ids, variants and object ids: the lock file must land in the cache.
util::Result<FileLock> acquire_lock(const RepoCache& cache, const std::string& name) {
  KB_TRY(check_inside(cache.root(), cache.lock_path(name)));
  return FileLock::acquire(cache.lock_path(name));
}

// A receipt proves the files match their blobs and the digest; the lock hash is per request, and
// cheap to recompute from the blob names (no file is read).
bool lock_hash_matches(const RepoCache& cache, const std::string& commit, const std::string& variant,
                       const InstallRequest& request) {
  auto expected = request.lock_hash_for(variant);
  if (!expected) return true;
  auto actual = snapshot_lock_hash(cache, commit, variant);
  return actual && *actual == *expected;
}

// The commit `revision` names: itself when it is a commit id, else the branch or tag's current
// commit (one request), remembered in refs/ for offline use when `remember`.
util::Result<std::string> commit_of(HubReader& hub, const RepoCache& cache, const std::string& repo_id,
                                    const std::string& revision, bool remember) {
  if (is_commit_hash(revision)) return revision;
  KB_TRY_ASSIGN(auto sha, hub.revision_sha(RepoType::kernel, repo_id, revision));
  if (remember) (void)cache.write_ref(revision, sha);
  return sha;
}

}  // namespace

Installer::Installer(fs::path cache_root, HubReader* hub) : root_(std::move(cache_root)), hub_(hub) {}

util::Result<InstallResult> Installer::install(const InstallRequest& request) {
  // From the user or a lockfile: checked before it becomes a URL or a cache path.
  KB_TRY(check_kernel_request(request.repo_id, request.revision));
  if (request.local_files_only) return install_offline(request);
  if (hub_ == nullptr) return Error(ErrorKind::generic, "No Hub client configured");
  return install_online(request, 0);
}

util::Result<std::vector<std::string>> Installer::build_listing(const RepoCache& cache,
                                                                const std::string& commit) {
  if (auto cached = read_build_listing(cache, commit)) {
    bool valid = std::all_of(cached->begin(), cached->end(),
                             [](const std::string& name) { return hub::protocol::check_repo_path(name).ok(); });
    if (valid) return *cached;
  }
  KB_TRY_ASSIGN(auto tree, hub_->list_tree(RepoType::kernel, cache.repo_id(), commit, "build", false));
  std::vector<std::string> names;
  for (const auto& entry : tree) {
    if (!entry.is_directory) continue;
    auto slash = entry.path.rfind('/');
    names.push_back(slash == std::string::npos ? entry.path : entry.path.substr(slash + 1));
  }
  (void)write_build_listing(cache, commit, names);  // only an optimisation
  return names;
}

util::Result<FetchedFile> Installer::fetch_file(const RepoCache& cache, const std::string& revision,
                                                const std::string& path,
                                                const std::optional<TreeEntry>& entry) {
  // Known blob: nothing to download.
  if (entry) {
    std::error_code ec;
    if (fs::exists(cache.blob_path(entry->etag()), ec)) {
      return FetchedFile{revision, entry->etag(), entry->size};
    }
  }
  auto tmp_dir = cache.repo_dir() / "blobs";
  std::error_code ec;
  fs::create_directories(tmp_dir, ec);
  // The lock is per destination name; the same name is resumed (Range) after a crash.
  std::string key = entry ? entry->etag() : util::sha256_hex(revision + "/" + path);
  KB_TRY_ASSIGN(auto lock, acquire_lock(cache, key));
  if (entry && fs::exists(cache.blob_path(entry->etag()), ec)) {
    return FetchedFile{revision, entry->etag(), entry->size};  // another process finished it
  }
  auto incomplete = tmp_dir / (key + ".incomplete");
  KB_TRY(check_inside(cache.root(), incomplete));
  auto fetched = hub_->download(RepoType::kernel, cache.repo_id(), revision, path, incomplete);
  if (!fetched) {
    fs::remove(incomplete, ec);
    return std::move(fetched).error();
  }
  auto existing = fs::exists(cache.blob_path(fetched->etag), ec)
                      ? content_matches_etag(cache.blob_path(fetched->etag), fetched->etag)
                      : util::Result<bool>(false);
  if (existing && *existing) {
    fs::remove(incomplete, ec);
  } else {
    KB_TRY(commit_blob(cache, incomplete, fetched->etag));  // new, or replaces a corrupted blob
  }
  return fetched;
}

util::Result<std::vector<TreeEntry>> Installer::variant_files(const RepoCache& cache, const std::string& commit,
                                                              const std::string& variant) {
  // HubReader::list_tree refuses the whole listing if one path is not below `build/<variant>/`.
  KB_TRY_ASSIGN(auto tree, hub_->list_tree(RepoType::kernel, cache.repo_id(), commit, "build/" + variant, true));
  std::vector<TreeEntry> files;
  for (const auto& entry : tree) {
    if (!entry.is_directory && !excluded(entry.path)) files.push_back(entry);
  }
  return files;
}

util::Status Installer::fetch_variant(const RepoCache& cache, const std::string& commit, const std::string& variant,
                                      const std::vector<TreeEntry>& files) {
  // Bulk download first when the server offers it; per-file otherwise or for what it missed.
  bool need_files = std::any_of(files.begin(), files.end(), [&](const TreeEntry& e) {
    std::error_code ec;
    return !fs::exists(cache.blob_path(e.etag()), ec);
  });
  if (need_files) {
    // Staged inside the cache (same filesystem as blobs/), removed whatever happens.
    auto staging = cache.repo_dir() / "blobs" / (util::sha256_hex(commit + "/" + variant) + ".bulk.incomplete");
    KB_TRY(check_inside(cache.root(), staging));
    struct Cleanup {
      fs::path path;
      ~Cleanup() {
        std::error_code ec;
        fs::remove_all(path, ec);
      }
    } cleanup{staging};
    auto bulk = hub_->download_directory(RepoType::kernel, cache.repo_id(), commit, "build/" + variant, staging);
    // A hostile stream stops the install; any other bulk failure falls back to per-file downloads.
    if (bulk && !*bulk && bulk->error().kind == ErrorKind::invalid) return bulk->error();
    if (bulk && *bulk) {
      for (const auto& file : **bulk) {
        auto it = std::find_if(files.begin(), files.end(), [&](const TreeEntry& e) { return e.path == file.path; });
        if (it == files.end()) continue;
        std::error_code ec;
        if (fs::exists(cache.blob_path(it->etag()), ec)) continue;
        KB_TRY_ASSIGN(auto lock, acquire_lock(cache, it->etag()));
        auto incomplete = cache.repo_dir() / "blobs" / (it->etag() + ".incomplete");
        fs::create_directories(incomplete.parent_path(), ec);
        fs::rename(file.local, incomplete, ec);
        if (ec) fs::copy_file(file.local, incomplete, fs::copy_options::overwrite_existing, ec);
        if (ec) continue;  // falls back to the per-file download below
        if (!commit_blob(cache, incomplete, it->etag())) continue;
      }
    }
  }
  for (const auto& entry : files) {
    KB_TRY_ASSIGN(auto fetched, fetch_file(cache, commit, entry.path, entry));
    KB_TRY(link_snapshot(cache, commit, entry.path, fetched.etag));
  }
  return {};
}

util::Result<InstallResult> Installer::install_online(const InstallRequest& request, int depth) {
  RepoCache cache(root_, RepoType::kernel, request.repo_id);
  InstallResult result;
  result.repo_id = request.repo_id;
  std::string revision = request.revision;
  auto commit = commit_of(*hub_, cache, request.repo_id, revision, true);
  if (!commit) return std::move(commit).error();

  // 1. Redirect (kernel-status.toml), answered from the cache when the commit was seen before.
  std::error_code ec;
  auto status_link = cache.snapshot_dir(*commit) / kStatusFile;
  std::optional<std::string> status_text;
  if (fs::exists(status_link, ec)) {
    auto text = util::read_file(status_link);
    if (text) status_text = *text;
  } else if (!fs::exists(cache.no_exist_path(*commit, kStatusFile), ec)) {
    auto fetched = fetch_file(cache, *commit, kStatusFile, std::nullopt);
    if (fetched) {
      KB_TRY(link_snapshot(cache, *commit, kStatusFile, fetched->etag));
      auto text = util::read_file(status_link);
      if (text) status_text = *text;
    } else {
      const std::string& code = fetched.error().code;
      if (code == hub::protocol::error_code::kEntryNotFound) {
        mark_missing(cache, *commit, kStatusFile);
      } else if (code != hub::protocol::error_code::kRepoNotFound) {
        return std::move(fetched).error();
      }
    }
  }
  if (status_text) {
    auto redirect = parse_kernel_status(*status_text);
    if (!redirect) return std::move(redirect).error();
    if (auto valid = check_kernel_request(redirect->destination, redirect->revision); !valid) {
      return valid.error().context("Refusing the kernel-status.toml redirect of `" + request.repo_id + "`");
    }
    if (depth >= 8) return Error(ErrorKind::config, "Too many kernel-status.toml redirects for " + request.repo_id);
    InstallRequest next = request;
    next.repo_id = redirect->destination;
    next.revision = redirect->revision;
    auto inner = install_online(next, depth + 1);
    if (!inner) return inner;
    inner->user_warnings.insert(inner->user_warnings.begin(),
                                "'" + request.repo_id + "' redirected to '" + redirect->destination + "'");
    return inner;
  }

  // 2. Variant selection.
  KB_TRY_ASSIGN(auto names, build_listing(cache, *commit));
  std::map<std::string, std::string> fetched_metadata;
  KB_TRY_ASSIGN(auto chosen, choose_online(cache, *commit, names, request.system, fetched_metadata));
  Selection& selection = chosen;
  if (!selection.best) return no_variant(request, names, selection);
  result.invalid_variants = selection.invalid;
  result.fallback_warning = fallback_warning(request.repo_id, selection);
  const std::string variant = *selection.best;
  result.commit = *commit;
  result.variant = variant;
  result.variant_path = cache.snapshot_dir(*commit) / "build" / variant;

  // One downloader per variant; the others wait and then find the receipt.
  KB_TRY_ASSIGN(auto lock, acquire_lock(cache, *commit + "-" + variant));
  if (receipt_valid(cache, *commit, variant) && lock_hash_matches(cache, *commit, variant, request)) {
    auto metadata = metadata::read_metadata_file((result.variant_path / "metadata.json").string());
    if (metadata) {
      KB_TRY(check_kernels_minver(*metadata, variant, request.system.kernels_version));
      if (request.validate_dependencies) KB_TRY(request.validate_dependencies(*metadata, variant));
      result.from_receipt = true;
      return result;
    }
  }
  remove_receipt(cache, *commit, variant);

  auto blob = fetched_metadata.find(variant);
  KB_TRY(ensure_variant(cache, *commit, variant, request,
                        blob == fetched_metadata.end() ? std::nullopt : std::optional<std::string>(blob->second)));
  return result;
}

util::Result<Selection> Installer::choose_online(const RepoCache& cache, const std::string& commit,
                                                 const std::vector<std::string>& names, const SystemInfo& system,
                                                 std::map<std::string, std::string>& fetched) {
  Selection selection = select_variant(names, system);
  auto metadata_of = [&](const std::string& variant) -> util::Result<metadata::Metadata> {
    const fs::path snapshot = cache.snapshot_dir(commit) / "build" / variant / "metadata.json";
    if (receipt_valid(cache, commit, variant)) return metadata::read_metadata_file(snapshot.string());
    KB_TRY_ASSIGN(auto blob, fetch_file(cache, commit, "build/" + variant + "/metadata.json", std::nullopt));
    fetched[variant] = blob.etag;
    return metadata::read_metadata_file(cache.blob_path(blob.etag).string());
  };
  KB_TRY(apply_arch_check(selection, system, metadata_of));
  return selection;
}

util::Status Installer::ensure_variant(const RepoCache& cache, const std::string& commit, const std::string& variant,
                                       const InstallRequest& request, const std::optional<std::string>& metadata_blob) {
  std::error_code ec;
  const fs::path variant_path = cache.snapshot_dir(commit) / "build" / variant;
  // 3. The file listing, checked before anything of the variant is fetched or written; then
  // metadata.json, so dependencies are validated before the bulk of the download.
  auto files = variant_files(cache, commit, variant);
  if (!files) return std::move(files).error();
  const std::string metadata_path = "build/" + variant + "/metadata.json";
  std::string metadata_etag;
  if (metadata_blob && fs::exists(cache.blob_path(*metadata_blob), ec)) {
    metadata_etag = *metadata_blob;
  } else {
    KB_TRY_ASSIGN(auto fetched, fetch_file(cache, commit, metadata_path, std::nullopt));
    metadata_etag = fetched.etag;
  }
  KB_TRY(link_snapshot(cache, commit, metadata_path, metadata_etag));
  KB_TRY_ASSIGN(auto metadata, metadata::read_metadata_file((variant_path / "metadata.json").string()));
  if (metadata.digest) KB_TRY(check_digest_paths(request.repo_id, variant, *metadata.digest));
  KB_TRY(check_kernels_minver(metadata, variant, request.system.kernels_version));
  if (request.validate_dependencies) KB_TRY(request.validate_dependencies(metadata, variant));

  // 4. The files, then verification; one repair round for corrupted cache entries.
  for (int attempt = 0;; ++attempt) {
    KB_TRY(fetch_variant(cache, commit, variant, *files));
    auto verified = verify_snapshot(cache, commit, variant, metadata, request.lock_hash_for(variant));
    if (verified) break;
    auto bad = corrupted_blobs(cache, commit, variant);
    if (attempt > 0 || bad.empty()) {
      return std::move(verified).error().context("Kernel " + request.repo_id + " (revision: " + request.revision +
                                                 ", variant: " + variant + ") failed verification");
    }
    for (const auto& file : bad) forget_file(cache, commit, "build/" + variant + "/" + file);
  }
  if (!fs::exists(variant_path, ec)) {
    return Error(ErrorKind::not_found,
                 "Cannot install kernel from repo " + request.repo_id + " (revision: " + request.revision + ")");
  }
  (void)write_receipt(cache, commit, variant);
  return {};
}

util::Result<std::vector<fs::path>> Installer::install_all_variants(const std::string& repo_id,
                                                                    const std::string& revision) {
  if (hub_ == nullptr) return Error(ErrorKind::generic, "No Hub client configured");
  KB_TRY(check_kernel_request(repo_id, revision));
  RepoCache cache(root_, RepoType::kernel, repo_id);
  KB_TRY_ASSIGN(auto resolved, commit_of(*hub_, cache, repo_id, revision, true));
  const std::string& commit = resolved;
  KB_TRY_ASSIGN(auto names, build_listing(cache, commit));
  InstallRequest request;
  request.repo_id = repo_id;
  request.revision = revision;
  std::vector<fs::path> dirs;
  for (const auto& variant : names) {
    dirs.push_back(cache.snapshot_dir(commit) / "build" / variant);
    KB_TRY_ASSIGN(auto lock, acquire_lock(cache, commit + "-" + variant));
    if (receipt_valid(cache, commit, variant)) continue;
    remove_receipt(cache, commit, variant);
    KB_TRY(ensure_variant(cache, commit, variant, request));
  }
  return dirs;
}

util::Result<InstallResult> Installer::install_offline(const InstallRequest& request) {
  RepoCache cache(root_, RepoType::kernel, request.repo_id);
  auto commit = cache.find_snapshot(request.revision);
  if (!commit) {
    return Error(ErrorKind::not_found, "Cannot find a local snapshot for " + request.repo_id + " (revision: " +
                                           request.revision +
                                           "). When Hugging Face Hub is in offline mode the kernel must "
                                           "already be present in the local cache.")
        .with_hint("download it while online (`kernels download <project>` for a project's kernels.lock), or unset "
                   "HF_HUB_OFFLINE");
  }
  auto names = local_variant_dirs(cache.snapshot_dir(*commit) / "build");
  auto selection = select_variant(names, request.system);
  KB_TRY(apply_arch_check(selection, request.system, [&](const std::string& variant) {
    return metadata::read_metadata_file((cache.snapshot_dir(*commit) / "build" / variant / "metadata.json").string());
  }));
  if (!selection.best) return no_variant(request, names, selection);
  InstallResult result;
  result.fallback_warning = fallback_warning(request.repo_id, selection);
  result.repo_id = request.repo_id;
  result.commit = *commit;
  result.variant = *selection.best;
  result.variant_path = cache.snapshot_dir(*commit) / "build" / result.variant;
  KB_TRY_ASSIGN(auto metadata, metadata::read_metadata_file((result.variant_path / "metadata.json").string()));
  if (receipt_valid(cache, *commit, result.variant) && lock_hash_matches(cache, *commit, result.variant, request)) {
    result.from_receipt = true;
  } else {
    auto verified = verify_snapshot(cache, *commit, result.variant, metadata, request.lock_hash_for(result.variant));
    if (!verified) {
      return std::move(verified).error().context(
          "The cached files of " + request.repo_id + " (revision: " + request.revision + ", variant: " + result.variant +
          ") are corrupted and cannot be re-downloaded because Hugging Face Hub is in offline mode. "
          "Load the kernel once while online to repair the cache.");
    }
    (void)write_receipt(cache, *commit, result.variant);
  }
  KB_TRY(check_kernels_minver(metadata, result.variant, request.system.kernels_version));
  if (request.validate_dependencies) KB_TRY(request.validate_dependencies(metadata, result.variant));
  return result;
}

util::Result<VariantListing> Installer::variants_at(const std::string& repo_id, const std::string& revision,
                                               const SystemInfo& system) {
  KB_TRY(check_kernel_request(repo_id, revision));
  RepoCache cache(root_, RepoType::kernel, repo_id);
  KB_TRY_ASSIGN(auto resolved, commit_of(*hub_, cache, repo_id, revision, false));
  const std::string& commit = resolved;
  KB_TRY_ASSIGN(auto names, build_listing(cache, commit));
  std::map<std::string, std::string> fetched;
  KB_TRY_ASSIGN(auto selection, choose_online(cache, commit, names, system, fetched));
  return VariantListing{std::move(names), std::move(selection)};
}

}  // namespace kb::loader
