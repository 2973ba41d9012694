// Build planning (see plan.h).
#include "builder/plan.h"

#include <algorithm>
#include <set>

#include "util/prelude.h"
#include "util/strings.h"
#include "variant/naming.h"
#include "variant/project_variants.h"

namespace kb::builder {

using config::Backend;

namespace {

std::optional<variant::MajorMinor> toolkit_of(const Toolchain& t, Backend backend) {
  switch (backend) {
    case Backend::cuda:
      if (t.cuda) return t.cuda->version;
      return std::nullopt;
    case Backend::rocm:
      return t.torch_hip ? variant::MajorMinor::parse_prefix(*t.torch_hip) : std::nullopt;
    case Backend::xpu:
      return t.torch_xpu ? variant::MajorMinor::parse_prefix(*t.torch_xpu) : std::nullopt;
    default:
      return std::nullopt;
  }
}

bool within(const std::optional<config::Version>& min, const std::optional<config::Version>& max,
            const config::Version& value) {
  return (!min || *min <= value) && (!max || value <= *max);
}

config::Version as_version(const variant::MajorMinor& v) { return config::Version({v.major, v.minor}); }

std::string describe_set(const variant::BuildSet& set) {
  std::string what = "Python with torch " + variant::MajorMinor::from(set.torch).to_string();
  if (auto toolkit = set.toolkit_major_minor()) {
    what += " and " + variant::toolkit_display_name(set.backend, *toolkit);
  } else if (set.backend != Backend::cpu) {
    what += " for " + std::string(config::to_string(set.backend));
  }
  return what;
}

// Arch variant of `backend` built by toolchain `t`; nullopt (with a note) when it does not apply.
Result<std::optional<PlannedVariant>> arch_variant(const config::BuildConfig& config, Backend backend,
                                                   const Toolchain& t, std::vector<std::string>& notes) {
  std::string label = "`" + t.python.string() + "` (torch " + t.torch_version + ")";
  if (auto missing = t.missing_for(backend)) {
    notes.push_back("not building " + std::string(config::to_string(backend)) + " with " + label + ": missing " + *missing);
    return std::optional<PlannedVariant>{};
  }
  auto cpu = variant::normalize_cpu(t.machine);
  if (!cpu) return std::move(cpu).error();
  auto os = variant::normalize_os(t.system);
  variant::ArchTarget target;
  target.backend = backend;
  target.cpu = *cpu;
  target.os = os.os;
  target.toolkit = toolkit_of(t, backend);
  PlannedVariant planned;
  planned.backend = backend;
  planned.toolchain = &t;
  config::Version torch_version = as_version(t.torch_major_minor());
  if (backend == Backend::cuda && config.general.cuda && target.toolkit &&
      !within(config.general.cuda->minver, config.general.cuda->maxver, as_version(*target.toolkit))) {
    notes.push_back("not building cuda with " + label + ": CUDA " + target.toolkit->to_string() +
                    " is outside [general.cuda] minver/maxver");
    return std::optional<PlannedVariant>{};
  }
  if (config.is_tvm_ffi()) {
    auto version = t.tvm_ffi_version ? variant::MajorMinor::parse_prefix(*t.tvm_ffi_version) : std::nullopt;
    if (!version) {
      notes.push_back("not building " + std::string(config::to_string(backend)) + " with " + label + ": tvm_ffi is not installed");
      return std::optional<PlannedVariant>{};
    }
    target.kind = variant::VariantKind::tvm_ffi;
    target.framework_version = *version;
    planned.flavour = Flavour::tvm_ffi;
  } else {
    const auto& torch = std::get<config::TorchConfig>(config.framework);
    if (!within(torch.minver, torch.maxver, torch_version)) {
      notes.push_back("not building " + std::string(config::to_string(backend)) + " with " + label +
                      ": torch is outside [torch] minver/maxver");
      return std::optional<PlannedVariant>{};
    }
    if (auto stable = torch.stable_abi_for(backend)) {
      if (torch_version < *stable) {
        return Error(ErrorKind::config, "Torch version " + t.torch_major_minor().to_string() +
                                            " is less than the stable ABI version " + stable->to_string() +
                                            ". Cannot build with stable ABI targeting a newer version of Torch.");
      }
      target.kind = variant::VariantKind::stable_abi;
      target.framework_version = variant::MajorMinor::from(*stable);
      planned.stable_abi = *stable;
    } else {
      target.kind = variant::VariantKind::torch_arch;
      target.framework_version = t.torch_major_minor();
    }
  }
  auto name = variant::arch_variant_name(target);
  if (!name) return std::move(name).error();
  planned.name = name->to_string();
  return std::optional<PlannedVariant>(std::move(planned));
}

}  // namespace

Backend toolchain_backend(const Toolchain& t) {
  if (t.torch_cuda) return Backend::cuda;
  if (t.torch_hip) return Backend::rocm;
  if (t.torch_xpu) return Backend::xpu;
  if (t.system == "Darwin") return Backend::metal;
  return Backend::cpu;
}

Result<BuildPlan> plan_build(const config::BuildConfig& config, const std::vector<Toolchain>& toolchains) {
  BuildPlan plan;
  std::set<std::string> names;
  for (Backend backend : config::all_backends) {
    if (!config.has_backend(backend) || !config.is_arch_backend(backend)) continue;
    for (const auto& t : toolchains) {
      auto planned = arch_variant(config, backend, t, plan.notes);
      if (!planned) return std::move(planned).error();
      if (*planned && names.insert((*planned)->name).second) plan.variants.push_back(std::move(**planned));
    }
  }
  for (Backend backend : config::all_backends) {
    if (!config.has_backend(backend) || config.is_arch_backend(backend)) continue;
    if (auto note = variant::backend_without_variant(config, backend)) {
      plan.notes.push_back(*note);
      continue;
    }
    PlannedVariant planned;
    planned.name = variant::noarch_variant_name(backend).to_string();
    planned.backend = backend;
    planned.flavour = Flavour::noarch;
    for (const auto& t : toolchains) {
      if (toolchain_backend(t) == backend || backend == Backend::cpu) {
        planned.toolchain = &t;
        break;
      }
    }
    if (names.insert(planned.name).second) plan.variants.push_back(std::move(planned));
  }
  // Bundle variants of the reference matrix for this host that no toolchain here produced, and
  // arch variants built here that are not in the bundle (e.g. a torch newer than the matrix).
  auto matrix = variant::reference_matrix();
  auto host = variant::this_host();
  if (matrix && host) {
    auto expected = variant::project_variants(*matrix, config, *host);
    if (expected) {
      std::set<std::string> bundle;
      for (const auto& v : expected->variants) {
        if (!v.bundle || !v.build_set) continue;
        bundle.insert(v.name_text);
        if (!names.count(v.name_text)) plan.missing.push_back({v.name_text, describe_set(*v.build_set)});
      }
      for (const auto& v : plan.variants) {
        if (v.flavour == Flavour::noarch || !v.toolchain || bundle.count(v.name)) continue;
        plan.notes.push_back("`" + v.name + "` (torch " + v.toolchain->torch_version +
                             ") is not part of the release bundle: the reference matrix has no bundle build set for it; "
                             "it is built for use where that torch is installed");
      }
    }
  }
  return plan;
}

std::string describe_toolchain(const Toolchain& t) {
  std::string out = "`" + t.python.string() + "` (torch " + t.torch_version;
  if (t.cuda) out += ", CUDA " + t.cuda->version.to_string();
  if (t.tvm_ffi_version) out += ", tvm-ffi " + *t.tvm_ffi_version;
  return out + ")";
}

Error nothing_to_build(const config::BuildConfig& config, const std::vector<Toolchain>& toolchains,
                       const BuildPlan& plan) {
  auto bounds = [](const char* what, const std::optional<config::Version>& min, const std::optional<config::Version>& max) {
    std::string out;
    if (min) out += std::string(what) + " >= " + min->to_string();
    if (max) out += (out.empty() ? std::string(what) + " <= " : ", <= ") + max->to_string();
    return out;
  };
  std::vector<std::string> backends;
  for (Backend backend : config::all_backends) {
    if (config.has_backend(backend) && !variant::backend_without_variant(config, backend)) {
      backends.push_back(std::string(config::to_string(backend)));
    }
  }
  std::vector<std::string> needs;
  needs.push_back(backends.empty() ? "a backend with a [kernel.*] unit (none is listed in general.backends)"
                                   : "backend " + util::join(backends, " or "));
  if (const auto* torch = std::get_if<config::TorchConfig>(&config.framework)) {
    if (auto text = bounds("torch", torch->minver, torch->maxver); !text.empty()) needs.push_back(text);
  }
  if (config.general.cuda && config.has_backend(Backend::cuda)) {
    if (auto text = bounds("CUDA", config.general.cuda->minver, config.general.cuda->maxver); !text.empty()) {
      needs.push_back(text);
    }
  }
  if (config.is_tvm_ffi()) needs.push_back("tvm-ffi (apache-tvm-ffi) installed next to torch");
  Error error(ErrorKind::config, "Nothing to build for `" + config.general.name +
                                     "`: no configured toolchain can build any of its variants");
  error.causes.push_back("the project needs " + util::join(needs, "; "));
  std::vector<std::string> found;
  for (const auto& t : toolchains) found.push_back(describe_toolchain(t));
  error.causes.push_back("toolchains found: " + (found.empty() ? std::string("none") : util::join(found, ", ")));
  for (const auto& note : plan.notes) error.causes.push_back(note);
  std::vector<std::string> sets;
  for (const auto& m : plan.missing) {
    if (std::find(sets.begin(), sets.end(), m.what) == sets.end()) sets.push_back(m.what);
  }
  if (!sets.empty()) error.hints.push_back("the reference matrix builds it with: " + util::join(sets, ", "));
  error.hints.push_back("pass an interpreter with such a torch using `--python <PATH>` (repeatable) or `--toolchains <FILE>`");
  return error;
}

}  // namespace kb::builder
