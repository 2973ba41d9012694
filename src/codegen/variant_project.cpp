// Rendering of the per-variant CMake project (see variant_project.h).
#include "codegen/variant_project.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "codegen/ops_py.h"
#include "util/strings.h"
#include "variant/cuda_capabilities.h"
#include "variant/rocm_archs.h"

namespace kb::codegen {

using config::Backend;
using util::ends_with;

namespace {

std::string quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string extension(const std::string& path) {
  auto dot = path.rfind('.');
  return dot == std::string::npos ? "" : path.substr(dot + 1);
}

bool is_cxx_source(const std::string& path) {
  auto ext = extension(path);
  return ext == "cpp" || ext == "cc" || ext == "cxx" || ext == "c";
}

std::string source_path(const std::string& relative) { return "\"${KB_PROJECT_DIR}/" + relative + "\""; }

const std::string& target_of(const VariantProjectInput& input) { return input.target.empty() ? input.ops_id : input.target; }

// The framework section's binding sources: [torch] or [tvm-ffi] (same keys).
struct Binding {
  std::vector<std::string> src;
  std::vector<std::string> include;
  std::vector<std::string> cxx_flags;
  std::string ext_dir;  // torch-ext or tvm-ffi-ext
};

Binding binding_of(const config::BuildConfig& config) {
  const std::vector<std::string> none;
  if (const auto* tvm = std::get_if<config::TvmFfiConfig>(&config.framework)) {
    return {tvm->src, tvm->include.value_or(none), tvm->cxx_flags.value_or(none), "tvm-ffi-ext"};
  }
  const auto& torch = std::get<config::TorchConfig>(config.framework);
  return {torch.src, torch.include.value_or(none), torch.cxx_flags.value_or(none), "torch-ext"};
}

}  // namespace

std::vector<std::string> module_include_dirs(const config::BuildConfig& config) {
  auto binding = binding_of(config);
  std::vector<std::string> out = {".", binding.ext_dir, "csrc"};
  for (const auto& inc : binding.include) {
    if (std::find(out.begin(), out.end(), inc) == out.end()) out.push_back(inc);
  }
  return out;
}

std::string render_module_include_dirs(const config::BuildConfig& config, const std::string& separator) {
  std::string out;
  for (const auto& dir : module_include_dirs(config)) {
    out += separator + (dir == "." ? std::string("\"${KB_PROJECT_DIR}\"") : source_path(dir));
  }
  return out;
}

namespace {

// Adds `sources` to the target; per-file options and include directories.
void add_sources(std::string& out, const std::string& target, const std::vector<std::string>& sources,
                 const std::vector<std::string>& options, const std::vector<std::string>& includes,
                 const std::string& language = "") {
  if (sources.empty()) return;
  std::vector<std::string> paths;
  for (const auto& s : sources) paths.push_back(source_path(s));
  out += "target_sources(" + target + " PRIVATE\n  " + util::join(paths, "\n  ") + ")\n";
  if (!options.empty() || !includes.empty() || !language.empty()) {
    out += "set_source_files_properties(\n  " + util::join(paths, "\n  ") + "\n  PROPERTIES";
    if (!language.empty()) out += " LANGUAGE " + language;
    if (!options.empty()) out += "\n  COMPILE_OPTIONS " + quote(util::join(options, ";"));
    if (!includes.empty()) {
      std::vector<std::string> dirs;
      for (const auto& inc : includes) dirs.push_back("${KB_PROJECT_DIR}/" + inc);
      out += "\n  INCLUDE_DIRECTORIES " + quote(util::join(dirs, ";"));
    }
    out += ")\n";
  }
}

// An nvcc flag that gives its own --split-compile or asks for what it cannot be combined with:
// device debug code (-G) and link-time optimisation (-dlto, code=lto_*).
bool excludes_split_compile(const std::string& flag) {
  for (const char* prefix : {"--split-compile", "-split-compile", "--device-debug", "-dlto", "--dlink-time-opt"}) {
    if (util::starts_with(flag, prefix)) return true;
  }
  return flag == "-G" || flag.find("lto_") != std::string::npos;
}

util::Result<std::vector<std::string>> cuda_unit_flags(const config::KernelUnit& unit, const VariantProjectInput& input,
                                         const std::vector<std::string>& archs) {
  std::vector<std::string> flags;
  if (!input.config->is_tvm_ffi()) {
    for (const auto& f : input.torch_nvcc_flags) {
      if (util::starts_with(f, "-D__CUDA_NO_HALF") || util::starts_with(f, "-D__CUDA_NO_BFLOAT16")) continue;
      flags.push_back(f);
    }
    // What torch's CMake package (Caffe2/public/cuda.cmake) adds to every nvcc command of a
    // project that finds it, as upstream's do: kernels use __device__ lambdas and constexpr host
    // functions in device code without asking for them (kernels-community/rotary).
    for (const char* f : {"--expt-relaxed-constexpr", "--expt-extended-lambda"}) {
      if (std::find(flags.begin(), flags.end(), f) == flags.end()) flags.push_back(f);
    }
  }
  if (input.cuda && (*input.cuda >= variant::MajorMinor{11, 8})) flags.push_back("-DENABLE_FP8");
  if (unit.cuda_flags) {
    bool old_cuda = input.cuda && *input.cuda < variant::MajorMinor{12, 8};
    for (const auto& f : *unit.cuda_flags) {
      if (old_cuda && util::starts_with(f, "-static-global-template-stub=")) continue;
      flags.push_back(f);
    }
  }
  int split = input.nvcc_split_compile.count;
  if (input.nvcc_split_compile.automatic) {
    bool reproducible =
        input.cuda && variant::split_compile_reproducible(config::Version({input.cuda->major, input.cuda->minor}), archs);
    split = reproducible ? kAutomaticSplitCompile : 0;
  }
  if (split > 0 && input.cuda && *input.cuda >= variant::MajorMinor{12, 0} &&
      std::none_of(flags.begin(), flags.end(), excludes_split_compile)) {
    flags.push_back("--split-compile=" + std::to_string(split));
  }
  // One `-gencode=<spec>` token per pair: CMake de-duplicates repeated bare `-gencode` options.
  KB_TRY_ASSIGN(auto gencode, variant::cuda_gencode_flags(archs));
  for (size_t i = 0; i + 1 < gencode.size(); i += 2) flags.push_back(gencode[i] + "=" + gencode[i + 1]);
  return flags;
}

util::Result<std::string> unit_block(const config::KernelUnit& unit, const VariantProjectInput& input) {
  std::string out = "# [kernel." + unit.name + "]\n";
  std::string target = target_of(input);
  std::vector<std::string> cxx, gpu, shaders;
  for (const auto& s : unit.src) {
    auto ext = extension(s);
    if (is_cxx_source(s)) {
      cxx.push_back(s);
    } else if (ext == "cu" || ext == "hip") {
      gpu.push_back(s);
    } else if (ext == "mm") {
      gpu.push_back(s);
    } else if (ext == "metal") {
      shaders.push_back(s);
    }
  }
  std::vector<std::string> includes = unit.include.value_or(std::vector<std::string>{});
  std::vector<std::string> cxx_flags = unit.cxx_flags.value_or(std::vector<std::string>{});
  auto archs_it = input.unit_archs.find(unit.name);
  std::vector<std::string> archs = archs_it == input.unit_archs.end() ? std::vector<std::string>{} : archs_it->second;
  switch (unit.backend) {
    case Backend::cuda: {
      if (archs.empty()) return "# [kernel." + unit.name + "] skipped: cuda-minver is above the toolkit version\n";
      add_sources(out, target, cxx, cxx_flags, includes);
      KB_TRY_ASSIGN(auto flags, cuda_unit_flags(unit, input, archs));
      add_sources(out, target, gpu, flags, includes);
      break;
    }
    case Backend::rocm: {
      std::vector<std::string> hip = unit.hip_flags.value_or(std::vector<std::string>{});
      for (const auto& flag : variant::rocm_offload_flags(archs)) hip.push_back(flag);
      add_sources(out, target, cxx, cxx_flags, includes);
      add_sources(out, target, gpu, hip, includes, "HIP");
      break;
    }
    case Backend::xpu: {
      std::vector<std::string> sycl = {"-fsycl", "-fhonor-nans", "-fhonor-infinities", "-fno-associative-math",
                                       "-fno-approx-func", "-foffload-fp32-prec-div", "-foffload-fp32-prec-sqrt",
                                       "-fno-sycl-instrument-device-code", "--offload-compress",
                                       "-fsycl-targets=spir64_gen,spir64"};
      for (const auto& f : unit.sycl_flags.value_or(std::vector<std::string>{})) sycl.push_back(f);
      for (const auto& f : cxx_flags) sycl.push_back(f);
      add_sources(out, target, cxx, sycl, includes);
      break;
    }
    case Backend::metal:
      add_sources(out, target, cxx, cxx_flags, includes);
      add_sources(out, target, gpu, cxx_flags, includes, "OBJCXX");
      for (const auto& shader : shaders) out += "list(APPEND KB_METAL_SHADERS " + source_path(shader) + ")\n";
      break;
    default:
      add_sources(out, target, cxx, cxx_flags, includes);
      break;
  }
  return out;
}

// Backend setup of a TVM-FFI library: no torch libraries; the CUDA runtime shared, as torch's.
std::string render_tvm_ffi_backend_setup(const VariantProjectInput& input) {
  const std::string& t = target_of(input);
  switch (input.backend) {
    case Backend::cuda:
      return "set(CMAKE_CUDA_STANDARD ${CMAKE_CXX_STANDARD})\n"
             "find_package(CUDAToolkit REQUIRED)\n"
             "# No framework has loaded a CUDA runtime for a TVM-FFI library: the static runtime keeps it\n"
             "# self-contained (only the driver, which the runtime opens itself, is needed at run time).\n"
             "set_target_properties(" + t + " PROPERTIES CUDA_RUNTIME_LIBRARY Static)\n"
             "target_link_libraries(" + t + " PRIVATE CUDA::cudart_static)\n"
             "if(KB_HAVE_NO_GNU_UNIQUE)\n"
             "  target_compile_options(" + t + " PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fno-gnu-unique>)\n"
             "endif()\n"
             + (input.nvcc_threads_option ? "if(KB_NVCC_THREADS)\n"
                                            "  target_compile_options(" + t +
                                                " PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--threads=${KB_NVCC_THREADS}>)\n"
                                            "endif()\n"
                                          : std::string());
    case Backend::xpu:
      return "target_link_options(" + t + " PRIVATE -fsycl -fsycl-targets=spir64_gen,spir64\n"
             "  \"-Xsycl-target-backend=spir64_gen\" \"-device pvc,xe-lpg,ats-m150\")\n";
    case Backend::cpu:
      return "if(APPLE)\n  set(CMAKE_OSX_DEPLOYMENT_TARGET 15.0)\nendif()\n";
    default:
      return "";
  }
}

}  // namespace

std::string render_backend_setup(const VariantProjectInput& input) {
  const std::string& t = target_of(input);
  if (input.config->is_tvm_ffi()) return render_tvm_ffi_backend_setup(input);
  switch (input.backend) {
    case Backend::cuda:
      return "set(CMAKE_CUDA_STANDARD ${CMAKE_CXX_STANDARD})\n"
             "find_package(CUDAToolkit REQUIRED)\n"
             "# torch uses the shared CUDA runtime: a second, static copy in the module would keep its own state.\n"
             "set_target_properties(" + t + " PROPERTIES CUDA_RUNTIME_LIBRARY Shared)\n"
             "target_link_libraries(" + t + " PRIVATE torch_cuda c10_cuda CUDA::cudart)\n"
             "if(KB_HAVE_NO_GNU_UNIQUE)\n"
             "  target_compile_options(" + t + " PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fno-gnu-unique>)\n"
             "endif()\n" +
             (input.nvcc_threads_option
                  ? "# nvcc's --threads (architectures of a source compiled in parallel): from kernel-builder, else\n"
                    "# NVCC_THREADS at configure time.\n"
                    "if(KB_NVCC_THREADS)\n"
                    "  target_compile_options(" + t + " PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--threads=${KB_NVCC_THREADS}>)\n"
                    "elseif(DEFINED ENV{NVCC_THREADS})\n"
                    "  target_compile_options(" + t + " PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--threads=$ENV{NVCC_THREADS}>)\n"
                    "endif()\n"
                  : std::string());
    case Backend::rocm:
      return "target_link_libraries(" + t + " PRIVATE torch_hip c10_hip)\n";
    case Backend::xpu:
      return "target_link_libraries(" + t + " PRIVATE torch_xpu c10_xpu dnnl)\n"
             "target_link_options(" + t + " PRIVATE -fsycl -fsycl-targets=spir64_gen,spir64\n"
             "  \"-Xsycl-target-backend=spir64_gen\" \"-device pvc,xe-lpg,ats-m150\")\n";
    case Backend::metal:
      return "set(CMAKE_OSX_DEPLOYMENT_TARGET 26.0)\n"
             "target_link_libraries(" + t + " PRIVATE \"-framework Metal\" \"-framework Foundation\")\n";
    case Backend::cpu:
      return "if(APPLE)\n  set(CMAKE_OSX_DEPLOYMENT_TARGET 15.0)\nendif()\n";
    default:
      return "";
  }
}


std::string torch_target_version(const config::Version& version) {
  unsigned long long value = (static_cast<unsigned long long>(version.major()) << 56) |
                             (static_cast<unsigned long long>(version.minor()) << 48);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%llx", value);
  return buffer;
}

std::vector<std::string> backend_definitions(const VariantProjectInput& input) {
  std::vector<std::string> definitions;
  if (input.config->is_tvm_ffi()) {
    // docs/build-output.md: TVM-FFI targets get only the kernel macro of their backend.
    switch (input.backend) {
      case Backend::cuda: return {"CUDA_KERNEL"};
      case Backend::rocm: return {"ROCM_KERNEL"};
      case Backend::xpu: return {"XPU_KERNEL"};
      case Backend::metal: return {"METAL_KERNEL"};
      default: return {"CPU_KERNEL"};
    }
  }
  switch (input.backend) {
    case Backend::cuda: definitions = {"USE_CUDA=1", "CUDA_KERNEL"}; break;
    case Backend::rocm: definitions = {"USE_ROCM=1", "ROCM_KERNEL"}; break;
    case Backend::xpu: definitions = {"XPU_KERNEL", "USE_XPU"}; break;
    case Backend::metal:
      // Named after the kernel, not the ops id: a definition that changes with every commit would
      // recompile every source (docs/build-engine.md). The header lives in the variant's build
      // directory; the namespace keeps kernels loaded side by side apart.
      definitions = {"METAL_KERNEL", "EMBEDDED_METALLIB_HEADER=\"kb_metallib.h\"",
                     "EMBEDDED_METALLIB_NAMESPACE=" + input.config->general.python_name() + "_metal"};
      break;
    default: definitions = {"CPU_KERNEL"}; break;
  }
  if (input.stable_abi) definitions.push_back("TORCH_TARGET_VERSION=" + torch_target_version(*input.stable_abi));
  return definitions;
}

// Sources of `input` compiled with per-source options (a precompiled header must be built with
// the same options as its users, so these keep parsing the torch headers).
std::set<std::string> sources_with_options(const VariantProjectInput& input) {
  std::set<std::string> out;
  auto binding = binding_of(*input.config);
  if (!binding.cxx_flags.empty()) out.insert(binding.src.begin(), binding.src.end());
  for (const auto* unit : input.config->units_for(input.backend)) {
    bool options = (unit->cxx_flags && !unit->cxx_flags->empty()) || unit->backend == Backend::xpu;
    if (options) out.insert(unit->src.begin(), unit->src.end());
  }
  return out;
}

// The torch header cache (kernel-builder's precompiled torch headers, src/builder/torch_pch.h):
// force-included into the listed sources when the builder passes KB_TORCH_PCH.
std::string torch_pch_block(const VariantProjectInput& input) {
  auto excluded = sources_with_options(input);
  std::vector<std::string> paths;
  for (const auto& s : input.torch_header_sources) {
    if (is_cxx_source(s) && extension(s) != "c" && !excluded.count(s)) paths.push_back(source_path(s));
  }
  if (paths.empty()) return "";
  return "# Torch header cache: sources that reach <torch/torch.h> through torch headers.\n"
         "if(KB_TORCH_PCH AND CMAKE_CXX_COMPILER_ID STREQUAL \"GNU\")\n"
         "  set_property(SOURCE\n    " + util::join(paths, "\n    ") +
         "\n    APPEND PROPERTY COMPILE_OPTIONS -include \"${KB_TORCH_PCH}\" -Winvalid-pch -fpch-preprocess)\n"
         "endif()\n";
}

// nvcc's front end (cudafe++) names each anonymous namespace after a hash of the source's
// absolute path, and the names reach the module's symbols and fatbin: giving it the path inside
// the project instead makes a CUDA module independent of where the project lies (reproducible
// builds in any directory, ccache hits across checkouts). The kernel's Python name keeps the names
// unique between kernels loaded side by side; it is not the ops id, which changes with every commit
// and would recompile every CUDA source (docs/build-engine.md).
// A source that defines no function of its own outside a template (only explicit instantiations,
// as mamba-ssm's selective_scan_*.cu) gets a module id, and with it the names of its internal
// entities in the device code, from the process id of nvcc's front end: two compiles of it differ.
// nvcc 12.9 on takes `--frandom-seed` for those numbers (and hands it to GCC as -frandom-seed): the
// same per-source name, one seed per source.
std::string cuda_source_names_block(const VariantProjectInput& input) {
  if (input.backend != Backend::cuda) return "";
  std::vector<std::string> cuda_sources;
  auto collect = [&](const std::vector<std::string>& sources) {
    for (const auto& s : sources) {
      if (extension(s) == "cu") cuda_sources.push_back(s);
    }
  };
  collect(binding_of(*input.config).src);
  for (const auto* unit : input.config->units_for(input.backend)) collect(unit->src);
  if (cuda_sources.empty()) return "";
  bool seed = input.cuda && *input.cuda >= variant::MajorMinor{12, 9};
  std::string out = "# CUDA sources named by their path in the project (reproducible anonymous namespaces";
  out += seed ? " and module ids).\n" : ").\n";
  for (const auto& s : cuda_sources) {
    std::string name = input.config->general.python_name() + "/" + s;
    out += "set_property(SOURCE " + source_path(s) + " APPEND PROPERTY COMPILE_OPTIONS \"-Xcudafe=--orig_src_path_name=" +
           name + (seed ? "\" \"--frandom-seed=" + name : "") + "\")\n";
  }
  return out;
}

// Per-kernel-unit symbol isolation (templates/project/variant/kernel_units.cmake): the compiled
// sources of each CPU or CUDA unit of a [torch] project, for kb_isolate_kernel_units; appended to
// the variant project only (not create-pyproject's). Other backends link their device code at the
// module's link (SYCL) or are not ELF (Metal); ROCm is not covered yet. TVM-FFI modules export
// their functions to tvm_ffi.load_module by symbol name, which isolation would hide.
std::string kernel_units_block(const VariantProjectInput& input) {
  if (!input.config->is_torch() || (input.backend != Backend::cpu && input.backend != Backend::cuda)) return "";
  std::string units;
  for (const auto* unit : input.config->units_for(input.backend)) {
    if (input.backend == Backend::cuda) {
      auto archs = input.unit_archs.find(unit->name);
      if (archs == input.unit_archs.end() || archs->second.empty()) continue;  // skipped unit
    }
    std::vector<std::string> paths;
    for (const auto& s : unit->src) {
      if (is_cxx_source(s) || (input.backend == Backend::cuda && extension(s) == "cu")) paths.push_back(source_path(s));
    }
    if (!paths.empty()) units += "\n  UNIT " + unit->name + "\n    " + util::join(paths, "\n    ");
  }
  if (units.empty()) return "";
  return "# Each kernel unit keeps its own symbols (kernel_units.cmake; off: build --no-symbol-isolation).\n"
         "include(\"${CMAKE_CURRENT_LIST_DIR}/kernel_units.cmake\")\n"
         "kb_isolate_kernel_units(" + target_of(input) + units + ")\n";
}

namespace {

// The ops id only where it is needed (VariantProjectInput::ops_id_sources): on the listed sources,
// and, with `ops_id_unit`, in the generated kb_ops_id.cpp that the registration macros read.
std::string ops_id_block(const VariantProjectInput& input) {
  if (!input.ops_id_sources) return "";
  std::string macro = input.config->is_tvm_ffi() ? "TVM_FFI_EXTENSION_NAME" : "TORCH_EXTENSION_NAME";
  std::string out;
  if (!input.ops_id_sources->empty()) {
    std::vector<std::string> paths;
    for (const auto& s : *input.ops_id_sources) paths.push_back(source_path(s));
    out += "# The ops id, on the sources that name " + macro + " (a new ops id recompiles only these).\n"
           "set_property(SOURCE\n  " + util::join(paths, "\n  ") + "\n  APPEND PROPERTY COMPILE_DEFINITIONS " +
           quote(macro + "=" + input.ops_id) + ")\n";
  }
  if (input.ops_id_unit) {
    out += "# The ops id for the registration macros of registration.h.\n"
           "target_sources(" + target_of(input) + " PRIVATE \"${KB_GENERATED_DIR}/kb_ops_id.cpp\")\n";
  }
  return out;
}

}  // namespace

util::Result<std::string> render_sources(const VariantProjectInput& input) {
  auto binding = binding_of(*input.config);
  std::string out = input.config->is_tvm_ffi() ? "# [tvm-ffi] binding sources.\n" : "# [torch] binding sources.\n";
  add_sources(out, target_of(input), binding.src, binding.cxx_flags, {});
  out += "# Kernel units.\n";
  for (const auto* unit : input.config->units_for(input.backend)) {
    KB_TRY_ASSIGN(auto block, unit_block(*unit, input));
    out += block;
  }
  out += torch_pch_block(input);
  out += cuda_source_names_block(input);
  out += ops_id_block(input);
  return out;
}

util::Result<GeneratedFiles> generate_variant_project(const VariantProjectInput& input) {
  const auto& cfg = *input.config;
  if (!cfg.is_torch() && !cfg.is_tvm_ffi()) {
    return util::Error(util::ErrorKind::config, "Only [torch] and [tvm-ffi] projects have arch variants built by this generator");
  }
  bool tvm_ffi = cfg.is_tvm_ffi();
  std::vector<std::string> definitions = backend_definitions(input);
  std::string definition_lines;
  for (const auto& d : definitions) definition_lines += "  " + quote(d) + "\n";
  if (!definition_lines.empty()) definition_lines.pop_back();

  std::string include_lines = render_module_include_dirs(cfg, "\n  ");

  std::string languages = "CXX";
  if (input.backend == Backend::cuda) languages = "CXX CUDA";
  if (input.backend == Backend::rocm) languages = "CXX HIP";
  if (input.backend == Backend::metal) languages = "C CXX OBJC OBJCXX";

  auto sources = render_sources(input);
  if (!sources) return std::move(sources).error();
  // A TVM-FFI library links only libtvm_ffi (KB_TORCH_* then name tvm_ffi's directories) and is
  // C++17, the standard tvm_ffi's headers require.
  std::string link = tvm_ffi ? "tvm_ffi" : "torch torch_cpu c10";
  std::string cxx_standard = !tvm_ffi && input.torch >= variant::MajorMinor{2, 12} ? "20" : "17";
  std::string name_definitions = tvm_ffi ? "  TVM_FFI_EXTENSION_NAME=" + input.ops_id + "\n"
                                         : "  TORCH_EXTENSION_NAME=" + input.ops_id + "\n  Py_LIMITED_API=0x03090000\n";
  if (input.ops_id_sources) {
    // Per source (ops_id_block); KB_OPS_ID_UNIT turns on registration.h's macros that read kb_ops_id.cpp.
    name_definitions = tvm_ffi ? "" : std::string(input.ops_id_unit ? "  KB_OPS_ID_UNIT\n" : "") + "  Py_LIMITED_API=0x03090000\n";
  }
  auto context = templating::string_context({{"variant", input.variant},
                                             {"ops_id", input.ops_id},
                                             {"target", target_of(input)},
                                             {"languages", languages},
                                             {"cxx_standard", cxx_standard},
                                             {"suffix", tvm_ffi ? ".so" : ".abi3.so"},
                                             {"name_definitions", name_definitions},
                                             {"definitions", definition_lines},
                                             {"includes", include_lines},
                                             {"link_libraries", link},
                                             {"backend_setup", render_backend_setup(input)},
                                             {"sources", *sources}});
  GeneratedFiles files;
  KB_TRY(add_project_template(files, "CMakeLists.txt", "variant/CMakeLists.txt.in", context));
  if (auto units = kernel_units_block(input); !units.empty()) {
    files["CMakeLists.txt"] += units;
    KB_TRY(add_project_template(files, "kernel_units.cmake", "variant/kernel_units.cmake"));
    KB_TRY(add_project_template(files, "kernel_unit_object.cmake", "variant/kernel_unit_object.cmake"));
  }
  if (input.backend == Backend::metal) {
    auto metal =
        render_project_template("variant/metal.cmake.in",
                                templating::string_context({{"namespace", cfg.general.python_name() + "_metal"},
                                                            {"target", target_of(input)}}));
    if (!metal) return std::move(metal).error();
    files["CMakeLists.txt"] += *metal;
    KB_TRY(add_project_template(files, "embed_metallib.cmake", "variant/embed_metallib.cmake"));
  }
  if (!tvm_ffi) KB_TRY(add_project_template(files, "registration.h", "registration.h"));
  if (input.ops_id_unit) {
    KB_TRY(add_project_template(files, "kb_ops_id.cpp", "variant/kb_ops_id.cpp.in",
                                templating::string_context({{"ops_id", input.ops_id}})));
  }
  return files;
}

}  // namespace kb::codegen
