// Kernel dependencies at load time (docs/build-output.md `kernel-depends`): before a variant is
// imported, every kernel it declares — and theirs, transitively — is resolved to a commit,
// installed (verified, cached) and listed dependencies-first. The walk is pure over a `fetch`
// function; `install_dependency` is the fetch the loader uses (lock, offline, Hub).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "loader/installer.h"
#include "loader/lockfile.h"
#include "metadata/metadata.h"
#include "util/result.h"

namespace kb::loader {

// One kernel installed for a requirement.
struct FetchedKernel {
  std::string commit;
  std::filesystem::path variant_path;
  metadata::Metadata metadata;
  std::vector<std::string> user_warnings;
};

struct ResolvedDependency {
  std::string repo_id;
  std::string commit;
  std::filesystem::path variant_path;
  std::vector<std::string> chain;  // root, …, this kernel (repo ids; the root may be a name)
};

struct DependencyResolution {
  std::vector<ResolvedDependency> kernels;  // dependencies before their dependents
  std::vector<std::string> user_warnings;
};

using FetchKernel = std::function<util::Result<FetchedKernel>(const metadata::KernelDependency&)>;

// "version 1" or "revision `main`".
std::string requirement_text(const metadata::KernelDependency& dependency);
// "`a` → `b` → `c`".
std::string chain_text(const std::vector<std::string>& chain);

// Walks `root_metadata.kernel_depends` depth-first. Errors: a kernel reached again while on its
// own chain (a cycle, chain named), one kernel required at two different versions or revisions
// (both chains named), a failed fetch (wrapped with the chain that needed it).
util::Result<DependencyResolution> resolve_kernel_dependencies(const std::string& root,
                                                               const metadata::Metadata& root_metadata,
                                                               const FetchKernel& fetch);

struct DependencyInstallOptions {
  SystemInfo system;
  bool local_files_only = false;  // offline: refs and snapshots from the cache only
  std::function<util::Status(const metadata::Metadata&, const std::string& variant)> validate_dependencies;
  std::vector<KernelLock> locks;  // the caller's kernels.lock (docs/loader.md), maybe empty
};

// Installs one dependency: the locked commit when the caller's lock has an entry for this
// requirement (or, older format, for the repo), else the commit of `v<version>` (or the
// revision), then the best variant for `options.system`.
util::Result<FetchedKernel> install_dependency(Installer& installer, const DependencyInstallOptions& options,
                                               const metadata::KernelDependency& dependency);

}  // namespace kb::loader
