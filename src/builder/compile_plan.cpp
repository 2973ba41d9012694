// Planning the compile of one arch variant (see compile_plan.h).
#include "builder/compile_plan.h"

#include <algorithm>

#include "abi/check.h"
#include "builder/remote_cache.h"
#include "util/prelude.h"
#include "util/strings.h"
#include "variant/cuda_capabilities.h"
#include "variant/rocm_archs.h"

namespace kb::builder {

using config::Backend;

namespace {

// The manylinux policy a Linux variant targets: --manylinux, else the policy of torch's wheels.
std::string compile_target_policy(const BuildSettings& s, const PlannedVariant& v) {
  if (s.manylinux) return *s.manylinux;
  return abi::default_policy_for_torch(v.toolchain->torch_major_minor().to_string());
}

// The generator's input: backend, versions, the architectures of each unit (all_archs collects
// them for metadata.json) and the sources that use the header cache.
Result<codegen::VariantProjectInput> project_input(const BuildSettings& s, const PlannedVariant& v,
                                                   const std::string& ops_id, const CompileFacts& facts,
                                                   bool header_cache, std::vector<std::vector<std::string>>& all_archs) {
  const Toolchain& t = *v.toolchain;
  codegen::VariantProjectInput input;
  input.config = s.config;
  input.backend = v.backend;
  input.variant = v.name;
  input.ops_id = ops_id;
  input.torch = t.torch_major_minor();
  input.stable_abi = v.stable_abi;
  input.torch_nvcc_flags = t.nvcc_flags;
  // nvcc's --threads comes from the environment of the compile step, not from the project.
  input.nvcc_threads_option = false;
  // --split-compile in the compile commands, unless the user's NVCC_APPEND_FLAGS gives its own
  // (nvcc refuses the option twice).
  bool own_split = facts.nvcc_append_flags && facts.nvcc_append_flags->find("split-compile") != std::string::npos;
  if (!own_split) input.nvcc_split_compile = s.split_compile;
  // The ops id only where it is needed (ops_id_use.h), and a target name that does not change with
  // it: a commit that leaves the sources alone recompiles nothing but kb_ops_id.cpp.
  input.target = codegen::kKernelModuleTarget;
  input.ops_id_sources = facts.ops_id_sources;
  input.ops_id_unit = facts.ops_id_unit;
  if (v.backend == Backend::cuda && t.cuda) {
    input.cuda = t.cuda->version;
    config::Version nvcc({t.cuda->version.major, t.cuda->version.minor});
    for (const auto* unit : s.config->units_for(Backend::cuda)) {
      if (unit->cuda_minver && nvcc < *unit->cuda_minver) continue;  // skipped entirely
      auto archs = variant::unit_cuda_capabilities(unit->name, unit->cuda_capabilities, nvcc);
      if (!archs) return std::move(archs).error();
      input.unit_archs[unit->name] = *archs;
      all_archs.push_back(*archs);
    }
  }
  if (v.backend == Backend::rocm) {
    for (const auto* unit : s.config->units_for(Backend::rocm)) {
      auto archs = variant::unit_rocm_archs(unit->name, unit->rocm_archs);
      if (!archs) return std::move(archs).error();
      input.unit_archs[unit->name] = *archs;
      all_archs.push_back(*archs);
    }
  }
  if (header_cache) input.torch_header_sources = facts.torch_header_sources;
  return input;
}

// nvcc's --threads: NVCC_THREADS, else the architectures of each CUDA source in parallel when
// there are cores to spare (jobs.h).
int plan_nvcc_threads(const BuildSettings& s, const PlannedVariant& v, const codegen::VariantProjectInput& input,
                      const CompileFacts& facts) {
  if (v.backend != Backend::cuda) return 1;
  if (facts.nvcc_threads_in_env) return s.nvcc_threads;
  int cuda_sources = 0;
  int architectures = 0;
  for (const auto* unit : s.config->units_for(Backend::cuda)) {
    auto archs = input.unit_archs.find(unit->name);
    if (archs == input.unit_archs.end()) continue;
    architectures = std::max(architectures, static_cast<int>(archs->second.size()));
    for (const auto& src : unit->src) cuda_sources += util::ends_with(src, ".cu") ? 1 : 0;
  }
  return auto_nvcc_threads(s.cores, cuda_sources, architectures);
}

// The CMake configure command. Everything in it is part of the compile identity: nothing here may
// depend on the parallelism of the build.
std::vector<std::string> configure_command(const BuildSettings& s, const PlannedVariant& v, const CompileFacts& facts,
                                           const CompilePlan& plan) {
  const Toolchain& t = *v.toolchain;
  bool tvm_ffi = v.flavour == Flavour::tvm_ffi;
  // A TVM-FFI library compiles against tvm_ffi's headers and links libtvm_ffi instead of torch;
  // cutlass_*/sycl_tla/metal-cpp headers join torch's (system) include directories.
  std::vector<std::string> include_dirs = tvm_ffi ? t.tvm_ffi_include_dirs : t.include_dirs;
  for (const auto& dir : facts.header_dependency_dirs) include_dirs.push_back(dir.string());
  std::string library_dir = tvm_ffi ? fs::path(t.tvm_ffi_library).parent_path().string()
                                    : (t.library_dirs.empty() ? "" : t.library_dirs[0]);
  std::vector<std::string> configure = {"cmake", "-S", plan.generated.string(), "-B", plan.cmake_dir.string(), "-G", "Ninja",
                                        "-DCMAKE_BUILD_TYPE=Release",
                                        "-DKB_PROJECT_DIR=" + s.project.string(),
                                        "-DKB_GENERATED_DIR=" + plan.generated.string(),
                                        "-DKB_TORCH_INCLUDE_DIRS=" + util::join(include_dirs, ";"),
                                        "-DKB_TORCH_LIBRARY_DIR=" + library_dir,
                                        "-DKB_PYTHON_INCLUDE_DIR=" + t.python_include};
  configure.push_back("-DKB_TORCH_PCH=" + (plan.header_cache ? plan.pch_header.string() : ""));
  // The header cache builds its entry with the compile command CMake writes there.
  if (plan.header_cache) configure.push_back("-DCMAKE_EXPORT_COMPILE_COMMANDS=ON");
  if (v.backend == Backend::cuda && t.cuda) {
    configure.push_back("-DCMAKE_CUDA_COMPILER=" + t.cuda->nvcc.string());
    configure.push_back("-DCMAKE_CUDA_ARCHITECTURES=OFF");
    configure.push_back("-DCUDAToolkit_ROOT=" + t.cuda->home.string());
  }
  // Always given (empty when off): CMake keeps a cache variable that a later configure omits.
  const auto& portable = facts.portable;
  configure.push_back("-DKB_PORTABLE_LINK_DIR=" + (portable ? portable->stub_dir.string() : ""));
  configure.push_back("-DKB_PORTABLE_SOURCES=" +
                      (portable && portable->support_source ? portable->support_source->string() : ""));
  configure.push_back("-DKB_PORTABLE_LIBRARIES=" + (portable ? util::join(portable->extra_libraries, ";") : ""));
  configure.push_back(std::string("-DKB_SYMBOL_ISOLATION=") + (s.symbol_isolation ? "ON" : "OFF"));
  if (facts.ccache) {
    configure.push_back("-DCMAKE_CXX_COMPILER_LAUNCHER=" + facts.ccache->string());
    if (v.backend == Backend::cuda) configure.push_back("-DCMAKE_CUDA_COMPILER_LAUNCHER=" + facts.ccache->string());
  }
  return configure;
}

}  // namespace

std::optional<std::string> nvcc_append_flags(const std::optional<std::string>& existing, int threads) {
  std::string flags = existing.value_or("");
  if (threads > 1) flags += (flags.empty() ? "" : " ") + std::string("--threads=") + std::to_string(threads);
  if (flags.empty()) return std::nullopt;
  return flags;
}

ModuleSources module_sources(const BuildSettings& s, const PlannedVariant& v) {
  ModuleSources out;
  out.sources = v.flavour == Flavour::tvm_ffi ? std::get<config::TvmFfiConfig>(s.config->framework).src
                                              : std::get<config::TorchConfig>(s.config->framework).src;
  out.include_dirs = codegen::module_include_dirs(*s.config);
  for (const auto* unit : s.config->units_for(v.backend)) {
    out.sources.insert(out.sources.end(), unit->src.begin(), unit->src.end());
    for (const auto& inc : unit->include.value_or(std::vector<std::string>{})) out.include_dirs.push_back(inc);
  }
  return out;
}

Result<CompilePlan> plan_compile(const BuildSettings& s, const PlannedVariant& v, const std::string& ops_id,
                                 const fs::path& work, const CompileFacts& facts) {
  CompilePlan plan;
  bool tvm_ffi = v.flavour == Flavour::tvm_ffi;
  plan.generated = work / "project";
  plan.cmake_dir = work / "cmake-build";
  plan.configure_stamp = work / "configure.args";
  plan.pch_header = work / "torch-pch" / "torch_pch.h";
  plan.stats_log = work / "ccache-stats.log";
  // The shared torch header cache (torch_pch.h), not for stable-ABI variants: those must not see
  // the full torch headers.
  plan.header_cache = s.header_cache && !v.stable_abi && !tvm_ffi;
  std::vector<std::vector<std::string>> all_archs;
  auto input = project_input(s, v, ops_id, facts, plan.header_cache, all_archs);
  if (!input) return std::move(input).error();
  auto files = codegen::generate_variant_project(*input);
  if (!files) return std::move(files).error();
  plan.files = std::move(*files);
  plan.archs = variant::recorded_archs(all_archs);
  plan.sources = module_sources(s, v).sources;
  plan.project_code.insert(facts.project_code.begin(), facts.project_code.end());
  plan.library = plan.cmake_dir / (ops_id + (tvm_ffi ? ".so" : ".abi3.so"));

  plan.configure = configure_command(s, v, facts, plan);
  plan.configure_key = util::join(plan.configure, "\n");
  plan.seed_configure = v.backend == Backend::cpu || v.backend == Backend::cuda;
  plan.seed_languages = v.backend == Backend::cuda ? "CXX CUDA" : "CXX";
  plan.ccache = facts.ccache;
  plan.remote_cache = s.remote_cache && facts.ccache;

  // The ABI check's policy and strictness: a --bundle build re-checks what a plain build noted.
  plan.stamp_input = "manylinux " + compile_target_policy(s, v) + (s.portable ? " portable" : "") +
                     (s.strict_manylinux ? " strict" : "") + "\n";
  if (facts.portable) plan.stamp_input += "portable " + facts.portable->fingerprint + "\n";
  for (const auto& [path, content] : plan.files) plan.stamp_input += path + "\n" + content + "\n";
  plan.stamp_input += plan.configure_key + "\n";

  // Parallelism: the job count and nvcc's threads, outside everything above.
  plan.nvcc_threads = plan_nvcc_threads(s, v, *input, facts);
  plan.jobs = plan_compile_jobs(s.cores, v.backend, plan.nvcc_threads, s.concurrent_variants, s.memory_budget_gib);
  plan.configure_env["SOURCE_DATE_EPOCH"] = facts.source_date_epoch;
  plan.compile_env = plan.configure_env;
  plan.compile_env["MAX_JOBS"] = std::to_string(plan.jobs.jobs);
  if (v.backend == Backend::cuda) {
    if (auto flags = nvcc_append_flags(facts.nvcc_append_flags, plan.nvcc_threads)) plan.compile_env["NVCC_APPEND_FLAGS"] = *flags;
  }
  if (plan.remote_cache) {
    for (const auto& [key, value] : remote_cache_env(*s.remote_cache, s.project, plan.stats_log)) plan.compile_env[key] = value;
  }
  return plan;
}

std::vector<std::string> ninja_command(const CompilePlan& plan, int jobs, const std::vector<std::string>& outputs) {
  std::vector<std::string> argv = {"ninja", "-C", plan.cmake_dir.string(), "-j", std::to_string(jobs)};
  argv.insert(argv.end(), outputs.begin(), outputs.end());
  return argv;
}

}  // namespace kb::builder
