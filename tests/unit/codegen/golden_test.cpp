// Golden tests of every generated file: `_ops.py` flavours, registration.h and the per-variant
// CMake project of each backend. Refresh with tests/unit/codegen/refresh_golden.sh.
#include <algorithm>
#include <cstdlib>
#include <tuple>

#include <gtest/gtest.h>

#include "codegen/ops_py.h"
#include "codegen/pyproject.h"
#include "codegen/variant_project.h"
#include "config/reader.h"
#include "util/fs.h"

using namespace kb::codegen;
namespace fs = std::filesystem;

namespace {

const fs::path golden_dir = fs::path(KB_TEST_DATA_DIR) / "unit" / "codegen" / "golden";

void expect_golden(const std::string& name, const std::string& actual) {
  fs::path path = golden_dir / name;
  if (std::getenv("KB_REFRESH_GOLDEN")) {
    ASSERT_TRUE(kb::util::write_file_atomic(path, actual));
    return;
  }
  auto expected = kb::util::read_file(path);
  ASSERT_TRUE(expected) << "missing golden file " << path << " (run refresh_golden.sh)";
  EXPECT_EQ(actual, *expected) << "golden mismatch: " << name;
}

void expect_golden(const std::string& name, const kb::util::Result<std::string>& actual) {
  ASSERT_TRUE(actual) << actual.error().message;
  expect_golden(name, *actual);
}

const char* all_backends_toml = R"([general]
name = "addone"
version = 1
edition = 5
license = "Apache-2.0"
backends = ["cpu", "cuda", "metal", "rocm", "xpu"]

[torch]
src = ["torch-ext/torch_binding.cpp", "torch-ext/torch_binding.h"]
include = ["include"]
cxx-flags = ["-DBINDING_FLAG"]

[kernel.addone_cpu]
backend = "cpu"
depends = ["torch"]
src = ["addone_cpu/addone_cpu.cpp"]
cxx-flags = ["-O3"]

[kernel.addone_cuda]
backend = "cuda"
depends = ["torch"]
cuda-capabilities = ["8.0", "9.0+PTX"]
cuda-flags = ["-lineinfo", "-static-global-template-stub=false"]
include = ["addone_cuda"]
src = ["addone_cuda/addone.cu", "addone_cuda/helper.cpp", "addone_cuda/addone.cuh"]

[kernel.addone_rocm]
backend = "rocm"
depends = ["torch"]
rocm-archs = ["gfx90a", "gfx942"]
hip-flags = ["-O3"]
src = ["addone_cuda/addone.cu"]

[kernel.addone_metal]
backend = "metal"
depends = ["torch"]
src = ["addone_metal/addone.mm", "addone_metal/addone.metal"]

[kernel.addone_xpu]
backend = "xpu"
depends = ["torch"]
src = ["addone_xpu/addone.cpp"]
)";

kb::config::BuildConfig parse(const std::string& text) {
  auto outcome = kb::config::parse_build_toml(text, "build.toml");
  EXPECT_TRUE(outcome.parsed) << (outcome.errors.empty() ? "" : outcome.errors.front().message);
  return outcome.parsed->config;
}

VariantProjectInput base_input(const kb::config::BuildConfig& config, kb::config::Backend backend,
                               const std::string& variant, const std::string& ops_id) {
  VariantProjectInput input;
  input.config = &config;
  input.backend = backend;
  input.variant = variant;
  input.ops_id = ops_id;
  input.torch = {2, 11};
  return input;
}

std::string project_for(const kb::config::BuildConfig& config, kb::config::Backend backend, const std::string& variant,
                        const std::string& ops_id, std::map<std::string, std::vector<std::string>> archs = {},
                        std::optional<kb::config::Version> stable = std::nullopt) {
  auto input = base_input(config, backend, variant, ops_id);
  if (backend == kb::config::Backend::cuda) input.cuda = kb::variant::MajorMinor{12, 6};
  input.unit_archs = std::move(archs);
  input.stable_abi = stable;
  input.torch_nvcc_flags = {"-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
                            "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__",
                            "--expt-relaxed-constexpr"};
  auto files = generate_variant_project(input);
  EXPECT_TRUE(files) << (files ? "" : files.error().message);
  EXPECT_EQ(files->count("registration.h"), 1u);
  return files->at("CMakeLists.txt");
}

// The variant build's input for one module: a fixed target and the ops id in kb_ops_id.cpp.
VariantProjectInput module_input(const kb::config::BuildConfig& config, kb::config::Backend backend,
                                 const std::string& variant, const std::string& ops_id) {
  auto input = base_input(config, backend, variant, ops_id);
  input.target = kKernelModuleTarget;
  input.ops_id_sources = std::vector<std::string>{};
  input.ops_id_unit = true;
  return input;
}

}  // namespace

TEST(golden, OpsPyFlavours) {
  expect_golden("ops_torch.py", render_ops_py_torch("_addone_cuda_3f9a1c2"));
  expect_golden("ops_noarch.py", render_ops_py_noarch("addone", "3f9a1c2"));
  expect_golden("ops_tvm_ffi.py", render_ops_py_tvm_ffi("_addone_cuda_3f9a1c2", "_addone_cuda_3f9a1c2.so"));
  expect_golden("registration.h", render_registration_h());
}

TEST(golden, VariantProjectPerBackend) {
  auto config = parse(all_backends_toml);
  using kb::config::Backend;
  expect_golden("cmake_cpu.txt", project_for(config, Backend::cpu, "torch211-cxx11-cpu-x86_64-linux", "_addone_cpu_abc"));
  expect_golden("cmake_cuda.txt", project_for(config, Backend::cuda, "torch211-cxx11-cu126-x86_64-linux",
                                              "_addone_cuda_abc", {{"addone_cuda", {"8.0", "9.0+PTX"}}}));
  expect_golden("cmake_rocm.txt", project_for(config, Backend::rocm, "torch211-cxx11-rocm71-x86_64-linux",
                                              "_addone_rocm_abc", {{"addone_rocm", {"gfx90a", "gfx942"}}}));
  expect_golden("cmake_metal.txt", project_for(config, Backend::metal, "torch211-metal-aarch64-darwin", "_addone_metal_abc"));
  expect_golden("cmake_xpu.txt", project_for(config, Backend::xpu, "torch211-cxx11-xpu20253-x86_64-linux", "_addone_xpu_abc"));
  expect_golden("cmake_stable_cpu.txt", project_for(config, Backend::cpu, "torch-stable-abi211-cpu-x86_64-linux",
                                                    "_addone_cpu_abc", {}, kb::config::Version({2, 11})));
}

// The variant build's module: a fixed target name and the ops id only where it is needed — in the
// generated kb_ops_id.cpp (ops_id_unit), or on the listed sources.
TEST(golden, VariantProjectOpsIdUnit) {
  auto config = parse(all_backends_toml);
  auto input = module_input(config, kb::config::Backend::cuda, "torch211-cxx11-cu126-x86_64-linux", "_addone_cuda_abc");
  input.cuda = kb::variant::MajorMinor{12, 6};
  input.unit_archs = {{"addone_cuda", {"8.0", "9.0+PTX"}}};
  input.nvcc_threads_option = false;
  auto files = generate_variant_project(input);
  ASSERT_TRUE(files) << files.error().message;
  expect_golden("cmake_cuda_ops_id_unit.txt", files->at("CMakeLists.txt"));
  expect_golden("kb_ops_id.cpp", files->at("kb_ops_id.cpp"));
  // Nothing else names the ops id: a new one changes no compile command of a kernel source.
  std::string text = files->at("CMakeLists.txt");
  size_t count = 0;
  for (size_t at = text.find("_addone_cuda_abc"); at != std::string::npos; at = text.find("_addone_cuda_abc", at + 1)) ++count;
  EXPECT_EQ(count, 2u);  // project() and OUTPUT_NAME
  EXPECT_EQ(text.find("--threads"), std::string::npos);

  input.ops_id_unit = false;
  input.ops_id_sources = std::vector<std::string>{"torch-ext/torch_binding.cpp"};
  files = generate_variant_project(input);
  ASSERT_TRUE(files) << files.error().message;
  EXPECT_EQ(files->count("kb_ops_id.cpp"), 0u);
  EXPECT_NE(files->at("CMakeLists.txt").find("set_property(SOURCE\n  \"${KB_PROJECT_DIR}/torch-ext/torch_binding.cpp\"\n"
                                             "  APPEND PROPERTY COMPILE_DEFINITIONS \"TORCH_EXTENSION_NAME=_addone_cuda_abc\")"),
            std::string::npos);
  EXPECT_EQ(files->at("CMakeLists.txt").find("KB_OPS_ID_UNIT"), std::string::npos);
}

// --split-compile N: on every CUDA source of a toolkit that has it (12.0 on), unless the unit's
// flags give their own or ask for device debug code or link-time optimisation. Automatic: 4 parts
// on a unit whose capabilities keep nvcc's output reproducible with it (CUDA 13, below 10.0).
namespace {

std::string split_flags_of(const std::string& cuda_flags, kb::variant::MajorMinor cuda, kb::codegen::SplitCompile split,
                           std::vector<std::string> archs = {"8.0", "9.0"}) {
  std::string toml = all_backends_toml;
  toml.replace(toml.find("cuda-flags = [\"-lineinfo\", \"-static-global-template-stub=false\"]"),
               std::string("cuda-flags = [\"-lineinfo\", \"-static-global-template-stub=false\"]").size(),
               "cuda-flags = [" + cuda_flags + "]");
  auto config = parse(toml);
  auto input = module_input(config, kb::config::Backend::cuda, "torch211-cxx11-cu126-x86_64-linux", "_addone_cuda_abc");
  input.cuda = cuda;
  input.unit_archs = {{"addone_cuda", std::move(archs)}};
  input.nvcc_split_compile = split;
  auto files = generate_variant_project(input);
  EXPECT_TRUE(files) << (files ? "" : files.error().message);
  std::string text = files->at("CMakeLists.txt");
  size_t at = text.find("COMPILE_OPTIONS", text.find("addone.cu"));
  return text.substr(at, text.find('\n', at) - at);
}

}  // namespace

TEST(variant_project, SplitCompileWhereTheToolkitAndTheUnitAllowIt) {
  const kb::codegen::SplitCompile four{false, 4};
  EXPECT_NE(split_flags_of("\"-lineinfo\"", {12, 6}, four).find(";--split-compile=4;-gencode="), std::string::npos)
      << split_flags_of("\"-lineinfo\"", {12, 6}, four);
  EXPECT_NE(split_flags_of("", {13, 0}, four, {"9.0", "12.0"}).find("--split-compile=4"), std::string::npos);
  EXPECT_EQ(split_flags_of("", {11, 8}, four).find("split-compile"), std::string::npos);
  EXPECT_EQ(split_flags_of("", {13, 0}, {false, 0}).find("split-compile"), std::string::npos);
  for (const char* own : {"\"-G\"", "\"--device-debug\"", "\"-dlto\"", "\"--split-compile=2\"", "\"-split-compile=0\""}) {
    std::string flags = split_flags_of(own, {12, 6}, four);
    EXPECT_EQ(flags.find("split-compile=4"), std::string::npos) << own << ": " << flags;
  }
}

TEST(variant_project, AutomaticSplitCompileOnlyWhereItStaysReproducible) {
  const kb::codegen::SplitCompile automatic{true, 0};
  EXPECT_NE(split_flags_of("", {13, 0}, automatic).find(";--split-compile=4;-gencode="), std::string::npos);
  EXPECT_NE(split_flags_of("", {13, 0}, automatic, {"7.5", "9.0a", "8.0+PTX"}).find("--split-compile=4"), std::string::npos);
  // A capability from 10.0 on, a CUDA 12 toolkit (not measured), a unit's own flags that exclude it.
  EXPECT_EQ(split_flags_of("", {13, 0}, automatic, {"9.0", "10.0"}).find("split-compile"), std::string::npos);
  EXPECT_EQ(split_flags_of("", {12, 9}, automatic).find("split-compile"), std::string::npos);
  EXPECT_EQ(split_flags_of("\"-G\"", {13, 0}, automatic).find("split-compile"), std::string::npos);
}

// A Metal variant too: the metallib, its embedding header and namespace are named after the
// kernel, so with the ops id in kb_ops_id.cpp no compile command or custom command names it.
TEST(golden, VariantProjectOpsIdUnitMetal) {
  auto config = parse(all_backends_toml);
  auto input = module_input(config, kb::config::Backend::metal, "torch211-metal-aarch64-darwin", "_addone_metal_abc");
  auto files = generate_variant_project(input);
  ASSERT_TRUE(files) << files.error().message;
  std::string text = files->at("CMakeLists.txt");
  size_t count = 0;
  for (size_t at = text.find("_addone_metal_abc"); at != std::string::npos; at = text.find("_addone_metal_abc", at + 1)) ++count;
  EXPECT_EQ(count, 2u) << text;  // project() and OUTPUT_NAME
  EXPECT_NE(text.find("\"EMBEDDED_METALLIB_HEADER=\\\"kb_metallib.h\\\"\""), std::string::npos) << text;
  EXPECT_NE(text.find("EMBEDDED_METALLIB_NAMESPACE=addone_metal"), std::string::npos) << text;
  EXPECT_NE(text.find("kb_ops_id.cpp"), std::string::npos);
}

TEST(torch_target_version, ShiftsMajorAndMinor) {
  EXPECT_EQ(torch_target_version(kb::config::Version({2, 11})), "0x20b000000000000");
}

TEST(make_ops_id, JoinsParts) { EXPECT_EQ(make_ops_id("flash_attn", "rocm", "3f9a1c2_dirty"), "_flash_attn_rocm_3f9a1c2_dirty"); }

TEST(golden, CreatePyprojectTorch) {
  auto config = parse(all_backends_toml);
  PyprojectInput input;
  input.config = &config;
  input.unique_id = "3f9a1c2";
  input.provenance.kernel_builder = kb::metadata::BuilderProvenance{"0.1.0", std::nullopt};
  input.provenance.kernel = kb::metadata::GitState{std::string(40, 'a'), false};
  auto files = generate_pyproject(input);
  ASSERT_TRUE(files) << files.error().message;
  for (const auto& [path, content] : *files) {
    std::string name = path;
    std::replace(name.begin(), name.end(), '/', '_');
    expect_golden("pyproject_torch/" + name, content);
  }
  std::vector<std::string> generated;
  for (const auto& [path, content] : *files) generated.push_back(path);
  generated.push_back("torch-ext/addone/_ops.py");
  std::sort(generated.begin(), generated.end());
  EXPECT_EQ(pyproject_artifacts(config), generated);
}

TEST(golden, CreatePyprojectNoarch) {
  auto config = parse(R"([general]
name = "my-norm"
version = 1
edition = 5
license = "MIT"
backends = ["cuda", "cann"]
python-depends = ["einops"]

[general.cuda]
python-depends = ["nvidia-cutlass-dsl"]

[torch-noarch]
pyext = ["py", "json"]
)");
  PyprojectInput input;
  input.config = &config;
  input.unique_id = "3f9a1c2";
  auto files = generate_pyproject(input);
  ASSERT_TRUE(files) << files.error().message;
  expect_golden("pyproject_noarch/setup.py", files->at("setup.py"));
  expect_golden("pyproject_noarch/pyproject.toml", files->at("pyproject.toml"));
  expect_golden("pyproject_noarch/metadata-cuda.json", files->at("metadata-cuda.json"));
  auto ops_py = render_ops_py_noarch("my_norm", "3f9a1c2");
  ASSERT_TRUE(ops_py) << ops_py.error().message;
  EXPECT_EQ(files->at("torch-ext/my_norm/_ops.py"), *ops_py);
}

namespace {

const char* tvm_ffi_toml = R"([general]
name = "scale-tvm"
version = 1
edition = 5
license = "Apache-2.0"
backends = ["cpu", "cuda"]

[tvm-ffi]
src = ["tvm-ffi-ext/tvm_ffi_binding.cpp"]
include = ["include"]
cxx-flags = ["-DBINDING_FLAG"]
pyext = ["py", "json"]

[kernel.scale_cpu]
backend = "cpu"
depends = []
src = ["scale_cpu/scale.cpp"]

[kernel.scale_cuda]
backend = "cuda"
depends = []
cuda-capabilities = ["8.0", "9.0"]
src = ["scale_cuda/scale.cu"]
)";

}  // namespace

// [tvm-ffi] arch variants: a plain `<ops id>.so` linked to tvm_ffi, TVM_FFI_EXTENSION_NAME and
// the backend's kernel macro, the binding sources of [tvm-ffi], no torch anywhere.
TEST(golden, VariantProjectTvmFfi) {
  auto config = parse(tvm_ffi_toml);
  using kb::config::Backend;
  for (auto [backend, file, variant, ops_id] :
       {std::tuple{Backend::cpu, "cmake_tvm_ffi_cpu.txt", "tvm-ffi01-cpu-x86_64-linux", "_scale_tvm_cpu_abc"},
        std::tuple{Backend::cuda, "cmake_tvm_ffi_cuda.txt", "tvm-ffi01-cu126-x86_64-linux", "_scale_tvm_cuda_abc"}}) {
    VariantProjectInput input;
    input.config = &config;
    input.backend = backend;
    input.variant = variant;
    input.ops_id = ops_id;
    input.torch = {2, 11};
    if (backend == Backend::cuda) input.cuda = kb::variant::MajorMinor{12, 6};
    input.unit_archs = {{"scale_cuda", {"8.0", "9.0"}}};
    input.torch_nvcc_flags = {"--expt-relaxed-constexpr"};  // torch's: not for TVM-FFI libraries
    auto files = generate_variant_project(input);
    ASSERT_TRUE(files) << files.error().message;
    EXPECT_EQ(files->count("registration.h"), 0u);
    const auto& cmake = files->at("CMakeLists.txt");
    expect_golden(file, cmake);
    EXPECT_NE(cmake.find("TVM_FFI_EXTENSION_NAME=" + std::string(ops_id)), std::string::npos);
    for (const char* torch_only : {"TORCH_EXTENSION_NAME", "Py_LIMITED_API", "torch_cpu", "c10", "expt-relaxed-constexpr"}) {
      EXPECT_EQ(cmake.find(torch_only), std::string::npos) << torch_only << " in a TVM-FFI library's project";
    }
  }
}

TEST(golden, CreatePyprojectTvmFfi) {
  auto config = parse(tvm_ffi_toml);
  PyprojectInput input;
  input.config = &config;
  input.unique_id = "3f9a1c2";
  input.project_dir = "/src/scale-tvm";
  auto files = generate_pyproject(input);
  ASSERT_TRUE(files) << files.error().message;
  for (const auto& name : {"CMakeLists.txt", "setup.py", "pyproject.toml", "cmake/_ops.py.in", "cmake/kernel_utils.cmake"}) {
    std::string golden = name;
    std::replace(golden.begin(), golden.end(), '/', '_');
    expect_golden("pyproject_tvm_ffi/" + golden, files->at(name));
  }
  EXPECT_EQ(files->count("torch-ext/registration.h"), 0u);
  std::vector<std::string> generated;
  for (const auto& [path, content] : *files) generated.push_back(path);
  generated.push_back("tvm-ffi-ext/scale_tvm/_ops.py");
  std::sort(generated.begin(), generated.end());
  EXPECT_EQ(pyproject_artifacts(config), generated);
}

TEST(render_backend_metadata, KernelsMinverFromKernelDependsAndBuildToml) {
  using kb::config::Backend;
  auto config = parse(R"([general]
name = "my-norm"
version = 1
edition = 5
license = "MIT"
backends = ["cuda", "rocm"]

[general.cuda]
kernel-depends = [{ repo-id = "org/common", version = 1 }]

[torch-noarch]
)");
  PyprojectInput input;
  input.config = &config;
  input.unique_id = "3f9a1c2";
  auto cuda = render_backend_metadata(input, Backend::cuda);
  ASSERT_TRUE(cuda) << cuda.error().message;
  EXPECT_NE(cuda->find("  \"version\": 1,\n  \"kernels-minver\": \"0.17.0\",\n  \"license\""), std::string::npos) << *cuda;
  auto rocm = render_backend_metadata(input, Backend::rocm);
  ASSERT_TRUE(rocm) << rocm.error().message;
  EXPECT_EQ(rocm->find("kernels-minver"), std::string::npos) << *rocm;  // no kernel-depends for rocm
  config.general.kernels_minver = kb::config::Version({0, 18, 2});
  EXPECT_NE(render_backend_metadata(input, Backend::rocm)->find("\"kernels-minver\": \"0.18.2\""), std::string::npos);
}
