// Kernel dependencies at load time: the depth-first walk (cycles, conflicts) and the
// installer-backed fetch of one dependency.
#include "loader/kernel_dependencies.h"

#include <algorithm>
#include <optional>

namespace kb::loader {

std::string requirement_text(const metadata::KernelDependency& dependency) {
  if (dependency.version) return "version " + std::to_string(*dependency.version);
  return "revision `" + dependency.revision.value_or("main") + "`";
}

std::string chain_text(const std::vector<std::string>& chain) {
  std::string out;
  for (const auto& name : chain) {
    if (!out.empty()) out += " → ";
    out += "`" + name + "`";
  }
  return out;
}

namespace {

struct Seen {
  metadata::KernelDependency requirement;
  std::vector<std::string> chain;
};

class Walk {
 public:
  explicit Walk(const FetchKernel& fetch) : fetch_(fetch) {}

  util::Status visit(std::vector<std::string>& chain, const metadata::Metadata& metadata) {
    for (const auto& dependency : metadata.kernel_depends) {
      std::vector<std::string> path = chain;
      path.push_back(dependency.repo_id);
      if (std::find(chain.begin(), chain.end(), dependency.repo_id) != chain.end()) {
        return util::Error(util::ErrorKind::invalid, "Kernel dependency cycle: " + chain_text(path))
            .with_hint("a kernel cannot depend on itself, directly or through other kernels");
      }
      if (auto it = seen_.find(dependency.repo_id); it != seen_.end()) {
        if (it->second.requirement.version == dependency.version &&
            it->second.requirement.revision == dependency.revision) {
          continue;
        }
        return util::Error(util::ErrorKind::invalid,
                           "Conflicting requirements for kernel `" + dependency.repo_id + "`: " +
                               requirement_text(it->second.requirement) + " (" + chain_text(it->second.chain) +
                               ") and " + requirement_text(dependency) + " (" + chain_text(path) + ")")
            .with_hint("one process can load only one version of a kernel; align the `kernel-depends` entries");
      }
      seen_.emplace(dependency.repo_id, Seen{dependency, path});
      auto fetched = fetch_(dependency);
      if (!fetched) {
        return fetched.error().context("Cannot load kernel dependency `" + dependency.repo_id + "` (" +
                                       requirement_text(dependency) + ", required by " + chain_text(chain) + ")");
      }
      out_.user_warnings.insert(out_.user_warnings.end(), fetched->user_warnings.begin(),
                                fetched->user_warnings.end());
      chain.push_back(dependency.repo_id);
      if (auto status = visit(chain, fetched->metadata); !status) return status;
      chain.pop_back();
      out_.kernels.push_back(ResolvedDependency{dependency.repo_id, fetched->commit, fetched->variant_path, path});
    }
    return {};
  }

  DependencyResolution take() { return std::move(out_); }

 private:
  const FetchKernel& fetch_;
  std::map<std::string, Seen> seen_;
  DependencyResolution out_;
};

}  // namespace

util::Result<DependencyResolution> resolve_kernel_dependencies(const std::string& root,
                                                               const metadata::Metadata& root_metadata,
                                                               const FetchKernel& fetch) {
  Walk walk(fetch);
  std::vector<std::string> chain{root};
  if (auto status = walk.visit(chain, root_metadata); !status) return std::move(status).error();
  return walk.take();
}

util::Result<FetchedKernel> install_dependency(Installer& installer, const DependencyInstallOptions& options,
                                               const metadata::KernelDependency& dependency) {
  InstallRequest request;
  request.repo_id = dependency.repo_id;
  request.local_files_only = options.local_files_only;
  request.system = options.system;
  request.validate_dependencies = options.validate_dependencies;
  FetchedKernel out;
  // The entry locking this very requirement; else an entry of the older format, which names only
  // the repository.
  auto lock = std::find_if(options.locks.begin(), options.locks.end(), [&](const KernelLock& entry) {
    return entry.repo_id == dependency.repo_id && entry.structured() &&
           entry.version == (dependency.version ? std::optional<long long>(*dependency.version) : std::nullopt) &&
           entry.revision == dependency.revision;
  });
  if (lock == options.locks.end()) {
    lock = std::find_if(options.locks.begin(), options.locks.end(), [&](const KernelLock& entry) {
      return entry.repo_id == dependency.repo_id && !entry.structured();
    });
  }
  if (lock != options.locks.end()) {
    request.revision = lock->sha;
    for (const auto& [variant, locked] : lock->variants) request.lock_hashes[variant] = locked.hash;
  } else if (dependency.version) {
    std::optional<std::string> warning;
    KB_TRY_ASSIGN(auto commit, installer.resolve_version(dependency.repo_id, static_cast<int>(*dependency.version),
                                            options.local_files_only, warning));
    if (warning) out.user_warnings.push_back(*warning);
    request.revision = commit;
  } else {
    request.revision = dependency.revision.value_or("main");
  }
  KB_TRY_ASSIGN(auto installed, installer.install(request));
  KB_TRY_ASSIGN(auto metadata, metadata::read_metadata_file((installed.variant_path / "metadata.json").string()));
  out.commit = installed.commit;
  out.variant_path = installed.variant_path;
  out.metadata = std::move(metadata);
  out.user_warnings.insert(out.user_warnings.end(), installed.user_warnings.begin(), installed.user_warnings.end());
  return out;
}

}  // namespace kb::loader
