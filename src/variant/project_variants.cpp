// Enumerating a project's variants from the matrix (see project_variants.h).
#include "variant/project_variants.h"

#include <sys/utsname.h>

#include <algorithm>
#include <map>

#include "variant/naming.h"

namespace kb::variant {

using config::Backend;
using config::BuildConfig;

namespace {

bool within(const config::Version& v, const std::optional<config::Version>& min, const std::optional<config::Version>& max) {
  if (min && v < *min) return false;
  if (max && v > *max) return false;
  return true;
}

bool on_host(const BuildSet& set, const std::optional<HostSystem>& host) {
  return !host || (set.cpu == host->cpu && set.os == host->os);
}

util::Result<VariantName> name_for(const BuildSet& set, VariantKind kind, const MajorMinor& framework_version) {
  ArchTarget target;
  target.kind = kind;
  target.framework_version = framework_version;
  target.backend = set.backend;
  target.toolkit = set.toolkit_major_minor();
  target.cpu = set.cpu;
  target.os = set.os;
  return arch_variant_name(target);
}

// Adds `variant` unless its name exists; a duplicate replaces the kept build set when it has
// a newer Torch (docs/variants.md: duplicates are built once, from the newest Torch).
void add_dedup(std::vector<ProjectVariant>& out, ProjectVariant variant) {
  auto it = std::find_if(out.begin(), out.end(), [&](const ProjectVariant& v) { return v.name_text == variant.name_text; });
  if (it == out.end()) {
    out.push_back(std::move(variant));
    return;
  }
  if (variant.build_set && it->build_set && variant.build_set->torch > it->build_set->torch) {
    it->build_set = variant.build_set;
    it->bundle = variant.bundle;
  }
}

ProjectVariant make_variant(VariantName name, Backend backend, std::optional<BuildSet> set, bool bundle) {
  ProjectVariant v;
  v.name_text = name.to_string();
  v.name = std::move(name);
  v.backend = backend;
  v.build_set = std::move(set);
  v.bundle = bundle;
  return v;
}

}  // namespace

util::Result<HostSystem> this_host() {
  utsname info{};
  if (uname(&info) != 0) return util::Error(util::ErrorKind::io, "Cannot determine the host system (uname failed)");
  KB_TRY_ASSIGN(auto cpu, normalize_cpu(info.machine));
  return HostSystem{cpu, normalize_os(info.sysname).os};
}

std::optional<std::string> backend_without_variant(const BuildConfig& config, Backend backend) {
  if (!config.has_backend(backend) || config.is_torch_noarch() || config.is_arch_backend(backend)) return std::nullopt;
  std::string name(config::to_string(backend));
  if (config.is_tvm_ffi()) return "backend `" + name + "` has no [kernel.*] unit; skipped (tvm-ffi kernels cannot be noarch)";
  return "backend `" + name + "` has no [kernel.*] unit; skipped (a [torch] project builds only backends with kernels)";
}

bool build_set_applies(const BuildSet& set, const BuildConfig& config) {
  if (!config.has_backend(set.backend)) return false;
  if (set.backend == Backend::cuda && set.toolkit && config.general.cuda &&
      !within(*set.toolkit, config.general.cuda->minver, config.general.cuda->maxver)) {
    return false;
  }
  if (const auto* torch = std::get_if<config::TorchConfig>(&config.framework)) {
    if (!within(set.torch, torch->minver, torch->maxver)) return false;
  }
  if (config.is_tvm_ffi() && !set.tvm_ffi) return false;
  return true;
}

util::Result<ProjectVariants> project_variants(const Matrix& matrix, const BuildConfig& config,
                                               const std::optional<HostSystem>& host) {
  ProjectVariants out;
  for (const BuildSet& set : matrix.build_sets) {
    if (set.noarch_only || !on_host(set, host) || !build_set_applies(set, config)) continue;
    if (!config.is_arch_backend(set.backend)) continue;  // noarch backends are added below
    if (const auto* torch = std::get_if<config::TorchConfig>(&config.framework)) {
      if (auto stable = torch->stable_abi_for(set.backend)) {
        KB_TRY_ASSIGN(auto name, name_for(set, VariantKind::stable_abi, MajorMinor::from(*stable)));
        add_dedup(out.variants, make_variant(std::move(name), set.backend, set, set.bundle));
        continue;
      }
      KB_TRY_ASSIGN(auto name, name_for(set, VariantKind::torch_arch, set.torch_major_minor()));
      add_dedup(out.variants, make_variant(std::move(name), set.backend, set, set.bundle));
    } else if (config.is_tvm_ffi()) {
      KB_TRY_ASSIGN(auto name, name_for(set, VariantKind::tvm_ffi, MajorMinor::from(*set.tvm_ffi)));
      add_dedup(out.variants, make_variant(std::move(name), set.backend, set, set.bundle));
    }
  }

  for (Backend backend : config::all_backends) {
    if (!config.has_backend(backend) || config.is_arch_backend(backend)) continue;
    if (auto note = backend_without_variant(config, backend)) {
      out.warnings.push_back(*note);
      continue;
    }
    add_dedup(out.variants, make_variant(noarch_variant_name(backend), backend, std::nullopt, true));
  }
  return out;
}

util::Result<std::vector<ProjectVariant>> arch_form_variants(const Matrix& matrix, const BuildConfig& config,
                                                             const std::optional<HostSystem>& host) {
  std::vector<ProjectVariant> out;
  for (const BuildSet& set : matrix.build_sets) {
    if (!on_host(set, host) || !build_set_applies(set, config)) continue;
    if (config.is_tvm_ffi() && !config.is_arch_backend(set.backend)) continue;  // cannot be built at all
    KB_TRY_ASSIGN(auto name, config.is_tvm_ffi() ? name_for(set, VariantKind::tvm_ffi, MajorMinor::from(*set.tvm_ffi))
                                     : name_for(set, VariantKind::torch_arch, set.torch_major_minor()));
    add_dedup(out, make_variant(std::move(name), set.backend, set, set.bundle));
  }
  return out;
}

}  // namespace kb::variant
