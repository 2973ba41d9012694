// devshell/testshell environments (see shell_env.h).
#include "builder/shell_env.h"

#include <algorithm>
#include <cstdlib>

#include "builder/plan.h"
#include "util/prelude.h"
#include "util/strings.h"
#include "variant/naming.h"

namespace kb::builder {

using config::Backend;

namespace {

struct Candidate {
  std::string name;     // arch name
  std::string built;    // directory under build/ this build set produces
  const Toolchain* toolchain = nullptr;
  Backend backend = Backend::cpu;
};

int backend_rank(Backend b) {
  switch (b) {
    case Backend::cuda: return 0;
    case Backend::rocm: return 1;
    case Backend::xpu: return 2;
    case Backend::metal: return 3;
    case Backend::cpu: return 4;
    default: return 5;
  }
}

Result<std::vector<Candidate>> candidates(const config::BuildConfig& config, const std::vector<Toolchain>& toolchains) {
  std::vector<Candidate> out;
  if (!config.is_torch_noarch()) {
    auto plan = plan_build(config, toolchains);
    if (!plan) return std::move(plan).error();
    for (const auto& v : plan->variants) {
      if (v.flavour != Flavour::noarch && v.toolchain) out.push_back({v.name, v.name, v.toolchain, v.backend});
    }
    return out;
  }
  // Noarch projects: each toolchain's own Torch arch name keys it; it tests `torch-<backend>`.
  for (const auto& t : toolchains) {
    Backend backend = toolchain_backend(t);
    if (!config.has_backend(backend)) continue;
    auto cpu = variant::normalize_cpu(t.machine);
    if (!cpu) return std::move(cpu).error();
    variant::ArchTarget target;
    target.backend = backend;
    target.framework_version = t.torch_major_minor();
    target.cpu = *cpu;
    target.os = variant::normalize_os(t.system).os;
    if (backend == Backend::cuda && t.cuda) target.toolkit = t.cuda->version;
    auto name = variant::arch_variant_name(target);
    if (!name) continue;  // e.g. a CUDA torch without nvcc: no toolkit to name
    out.push_back({name->to_string(), variant::noarch_variant_name(backend).to_string(), &t, backend});
  }
  return out;
}

}  // namespace

Result<ShellEnvironment> shell_environment(const config::BuildConfig& config, const fs::path& project,
                                           const std::vector<Toolchain>& toolchains,
                                           const std::optional<std::string>& variant, bool test_shell) {
  auto found = candidates(config, toolchains);
  if (!found) return std::move(found).error();
  std::vector<Candidate> list = std::move(*found);
  std::stable_sort(list.begin(), list.end(), [](const Candidate& a, const Candidate& b) {
    if (backend_rank(a.backend) != backend_rank(b.backend)) return backend_rank(a.backend) < backend_rank(b.backend);
    auto ta = a.toolchain->torch_major_minor(), tb = b.toolchain->torch_major_minor();
    if (ta.major != tb.major || ta.minor != tb.minor) return std::tie(ta.major, ta.minor) > std::tie(tb.major, tb.minor);
    auto ka = a.toolchain->cuda ? a.toolchain->cuda->version : variant::MajorMinor{};
    auto kb_ = b.toolchain->cuda ? b.toolchain->cuda->version : variant::MajorMinor{};
    return std::tie(ka.major, ka.minor) < std::tie(kb_.major, kb_.minor);
  });
  if (list.empty()) {
    return Error(ErrorKind::config, "No toolchain here can build a variant of `" + config.general.name + "`")
        .with_hint("pass an interpreter with torch using `--python <PATH>`");
  }
  fs::path build_dir = project / "build";
  std::error_code ec;
  auto is_built = [&](const Candidate& c) { return fs::is_regular_file(build_dir / c.built / "metadata.json", ec); };
  const Candidate* chosen = &list.front();
  if (test_shell && !variant) {  // the first build set in that order that was built, not one that never was
    auto built = std::find_if(list.begin(), list.end(), is_built);
    if (built != list.end()) chosen = &*built;
  }
  if (variant) {
    auto it = std::find_if(list.begin(), list.end(), [&](const Candidate& c) { return c.name == *variant; });
    if (it == list.end()) {
      std::vector<std::string> names;
      for (const auto& c : list) names.push_back(c.name);
      return Error(ErrorKind::usage, "Unknown variant `" + *variant + "`.\nValid variants for this architecture are: " +
                                         util::join(names, ", "));
    }
    chosen = &*it;
  }
  const Toolchain& t = *chosen->toolchain;
  ShellEnvironment env;
  env.variant = chosen->name;
  env.python = t.python;
  fs::path bin = t.python.parent_path();
  std::string path = bin.string();
  if (chosen->backend == Backend::cuda && t.cuda) {
    env.set["CUDA_HOME"] = t.cuda->home.string();
    path += ":" + (t.cuda->home / "bin").string();
  }
  const char* inherited = std::getenv("PATH");
  env.set["PATH"] = path + (inherited && *inherited ? ":" + std::string(inherited) : "");
  if (fs::is_regular_file(bin.parent_path() / "pyvenv.cfg", ec)) env.set["VIRTUAL_ENV"] = bin.parent_path().string();
  env.set["KERNEL_BUILDER_VARIANT"] = chosen->name;
  if (config.general.hub && config.general.hub->repo_id) env.set["LOCAL_KERNELS"] = *config.general.hub->repo_id + "=" + build_dir.string();
  if (test_shell) {
    env.built = chosen->built;
    if (!is_built(*chosen)) {
      return Error(ErrorKind::not_found, "Variant `" + chosen->built + "` is not built in `" + build_dir.string() + "`")
          .with_hint("run `kernel-builder build --variant " + chosen->built + "` first");
    }
    fs::path packages = build_dir / ".kb" / "testshell" / chosen->built;
    env.package = ShellEnvironment::Link{packages / config.general.python_name(), build_dir / chosen->built};
    // Prepended: a `kernels` (or anything else) the user has on PYTHONPATH stays importable.
    const char* python_path = std::getenv("PYTHONPATH");
    env.set["PYTHONPATH"] = packages.string() + ":" + (build_dir / chosen->built).string() +
                            (python_path && *python_path ? ":" + std::string(python_path) : "");
    env.unset.push_back("LD_LIBRARY_PATH");
  }
  return env;
}

}  // namespace kb::builder
