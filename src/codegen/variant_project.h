// The private CMake project of one arch variant build (docs/build-output.md): compiles
// the [torch] binding sources plus the backend's kernel units into `<ops id>.abi3.so`. Generated
// outside the source tree; machine paths enter as cache variables so the text is reproducible.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "codegen/generated_files.h"
#include "config/model.h"
#include "util/result.h"
#include "variant/major_minor.h"

namespace kb::codegen {

// How nvcc's --split-compile is chosen for a project's CUDA units.
struct SplitCompile {
  // kAutomaticSplitCompile parts on each unit whose every capability keeps its device code the
  // same from run to run with it (variant::split_compile_reproducible); `count` is then unused.
  bool automatic = false;
  int count = 0;  // parts on every CUDA unit (0: not given)
};
inline constexpr int kAutomaticSplitCompile = 4;

struct VariantProjectInput {
  const config::BuildConfig* config = nullptr;
  config::Backend backend = config::Backend::cpu;
  std::string variant;  // variant name, for the header comment
  std::string ops_id;
  variant::MajorMinor torch;                 // Torch version of the toolchain
  std::optional<variant::MajorMinor> cuda;   // toolkit version (cuda)
  std::optional<config::Version> stable_abi;  // stable-ABI target, if this backend uses it
  // Per unit: the selected arch list (CUDA capabilities or ROCm gfx targets). A CUDA unit
  // missing here is skipped (cuda-minver above the toolkit).
  std::map<std::string, std::vector<std::string>> unit_archs;
  std::vector<std::string> torch_nvcc_flags;  // torch's COMMON_NVCC_FLAGS (filtered here)
  // C++ sources (project-relative) that may use the torch header cache (src/builder/torch_pch.h):
  // those among them that get no per-source compile options are compiled with
  // `-include ${KB_TORCH_PCH}` when the configure command sets KB_TORCH_PCH and the compiler is GCC.
  std::vector<std::string> torch_header_sources;
  // nvcc's --threads in the project's compile options (KB_NVCC_THREADS, else NVCC_THREADS at
  // configure time), as create-pyproject's projects have it. The variant build turns it off: it
  // passes the threads through the compile step's environment, so that they stay out of the
  // compile commands (docs/build-engine.md).
  bool nvcc_threads_option = true;
  // nvcc's --split-compile on the CUDA sources, where the toolkit has it (12.0 on) and the unit's
  // flags neither give their own nor ask for what excludes it (-G, link-time optimisation). In the
  // compile commands: the count changes the compiled device code's layout, so it is part of the
  // compile identity (docs/build-engine.md). The variant build's `--split-compile auto|off|N`.
  SplitCompile nvcc_split_compile;
  // The module's CMake target; empty: `ops_id` (create-pyproject passes `${OPS_NAME}` there). The
  // variant build names it kKernelModuleTarget, so that the objects' paths and the target's export
  // define stay the same from one ops id to the next.
  std::string target;
  // Which sources see the ops id (docs/build-engine.md). None (create-pyproject): every source, as
  // TORCH_EXTENSION_NAME (TVM_FFI_EXTENSION_NAME). Given (the variant build): only these sources
  // (project-relative); with `ops_id_unit`, the generated kb_ops_id.cpp holds it for the
  // registration macros of registration.h, and the sources that only register ops do not see it.
  std::optional<std::vector<std::string>> ops_id_sources;
  bool ops_id_unit = false;
};

// The variant build's module target.
inline constexpr const char* kKernelModuleTarget = "kb_module";

// Files: `CMakeLists.txt`, `registration.h` and, with `ops_id_unit`, `kb_ops_id.cpp`.
util::Result<GeneratedFiles> generate_variant_project(const VariantProjectInput& input);

// The directories, relative to the kernel directory ("." for itself), that every source of the
// module includes from: the kernel directory, the binding directory (torch-ext or tvm-ffi-ext),
// csrc/ (upstream's module target adds it, and bindings include its headers by bare name, e.g.
// kernels-community/megablocks' "cumsum.h"), then the binding's `include` entries.
std::vector<std::string> module_include_dirs(const config::BuildConfig& config);
// Those directories as quoted CMake paths under ${KB_PROJECT_DIR}, `separator` before each.
std::string render_module_include_dirs(const config::BuildConfig& config, const std::string& separator);

// The CMake text adding the [torch] sources and the kernel units of `input.backend` to the module's
// target (`input.target`, else `input.ops_id`, which may be a CMake expression such as `${OPS_NAME}`).
util::Result<std::string> render_sources(const VariantProjectInput& input);
// Compile definitions of a backend (docs/build-output.md), without TORCH_EXTENSION_NAME.
std::vector<std::string> backend_definitions(const VariantProjectInput& input);
// Backend-specific target setup (CUDA runtime, SYCL link flags, frameworks, deployment target).
std::string render_backend_setup(const VariantProjectInput& input);

// `TORCH_TARGET_VERSION` value: ((major << 56) | (minor << 48)) in hex, e.g. 2.11 -> 0x20b000000000000.
std::string torch_target_version(const config::Version& version);

}  // namespace kb::codegen
