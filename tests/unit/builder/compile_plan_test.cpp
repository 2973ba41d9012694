// Planning the compile of an arch variant (compile_plan.h): the generated project, the configure
// command and its stamp, the header cache, the portable link, ccache, and a compile identity that
// the parallelism of the build (cores, concurrent variants, memory budget, NVCC_THREADS) leaves
// alone.
#include "builder/compile_plan.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "config/reader.h"

namespace kb::builder {
namespace {
namespace KB_UNITY_ID {

config::BuildConfig parse(const std::string& extra = "") {
  auto outcome = config::parse_build_toml(R"([general]
name = "k1"
version = 1
edition = 5
license = "MIT"
backends = ["cpu", "cuda"]

[torch]
src = ["torch-ext/torch_binding.cpp"]
)" + extra + R"(
[kernel.k_cpu]
backend = "cpu"
depends = ["torch"]
src = ["k_cpu/k.cpp"]

[kernel.k_cuda]
backend = "cuda"
depends = ["torch"]
cuda-capabilities = ["8.0", "9.0"]
src = ["k_cuda/a.cu", "k_cuda/b.cu"]
)", "build.toml");
  EXPECT_TRUE(outcome.parsed) << (outcome.errors.empty() ? "" : outcome.errors.front().message);
  return outcome.parsed->config;
}

Toolchain toolchain() {
  Toolchain t;
  t.python = "/venv/bin/python";
  t.python_include = "/usr/include/python3.11";
  t.machine = "x86_64";
  t.system = "Linux";
  t.torch_version = "2.11.0+cu130";
  t.torch_cuda = "13.0";
  t.include_dirs = {"/venv/torch/include", "/venv/torch/include/api"};
  t.library_dirs = {"/venv/torch/lib"};
  t.cuda = CudaToolkit{"/usr/local/cuda/bin/nvcc", {13, 0}, "/usr/local/cuda"};
  return t;
}

struct Fixture {
  config::BuildConfig config = parse();
  Toolchain cuda_toolchain = toolchain();
  BuildSettings settings;
  CompileFacts facts;
  Fixture() {
    settings.project = "/k";
    settings.config = &config;
    settings.unique_id = "abc1234";
    facts.source_date_epoch = "1700000000";
  }
  PlannedVariant variant(config::Backend backend) {
    std::string name = backend == config::Backend::cuda ? "torch211-cxx11-cu130-x86_64-linux" : "torch211-cxx11-cpu-x86_64-linux";
    return PlannedVariant{name, backend, Flavour::torch_arch, &cuda_toolchain, {}};
  }
  CompilePlan plan(config::Backend backend) {
    auto planned = plan_compile(settings, variant(backend), "_k1_cuda_abc1234", "/k/build/.kb/v", facts);
    EXPECT_TRUE(planned) << (planned ? "" : planned.error().message);
    return planned ? *planned : CompilePlan{};
  }
};

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

TEST(plan_compile, CompileIdentityDoesNotDependOnCoresJobsMemoryOrNvccThreads) {
  Fixture one;
  one.settings.cores = 1;
  CompilePlan first = one.plan(config::Backend::cuda);

  Fixture many;
  many.settings.cores = 16;
  many.settings.concurrent_variants = 3;
  many.settings.memory_budget_gib = 60.0;
  many.settings.nvcc_threads = 4;
  many.facts.nvcc_threads_in_env = true;
  CompilePlan second = many.plan(config::Backend::cuda);

  EXPECT_EQ(first.files, second.files);
  EXPECT_EQ(first.configure, second.configure);
  EXPECT_EQ(first.configure_key, second.configure_key);
  EXPECT_EQ(first.stamp_input, second.stamp_input);
  EXPECT_EQ(first.configure_env, second.configure_env);
  // Only the parallelism differs.
  EXPECT_EQ(first.nvcc_threads, 1);
  EXPECT_EQ(second.nvcc_threads, 4);
  EXPECT_NE(first.jobs.jobs, second.jobs.jobs);
}

TEST(plan_compile, NvccThreadsReachNvccThroughTheCompileEnvironmentOnly) {
  Fixture f;
  f.settings.cores = 8;  // two .cu sources, two architectures: each source's archs in parallel
  CompilePlan plan = f.plan(config::Backend::cuda);
  EXPECT_EQ(plan.nvcc_threads, 2);
  EXPECT_EQ(plan.compile_env.at("NVCC_APPEND_FLAGS"), "--threads=2");
  EXPECT_EQ(plan.jobs.jobs, 4);  // 8 cores, 2 threads per job
  EXPECT_EQ(plan.configure_env.count("NVCC_APPEND_FLAGS"), 0u);
  EXPECT_EQ(plan.configure_env.count("MAX_JOBS"), 0u);
  EXPECT_EQ(plan.compile_env.at("MAX_JOBS"), "4");
  EXPECT_EQ(plan.configure_key.find("threads"), std::string::npos);
  EXPECT_EQ(plan.files.at("CMakeLists.txt").find("--threads"), std::string::npos);
  EXPECT_EQ(plan.files.at("CMakeLists.txt").find("NVCC_THREADS"), std::string::npos);
}

TEST(plan_compile, CpuVariantGetsNoNvccFlags) {
  Fixture f;
  f.settings.cores = 8;
  f.facts.nvcc_append_flags = "-lineinfo";
  CompilePlan plan = f.plan(config::Backend::cpu);
  EXPECT_EQ(plan.nvcc_threads, 1);
  EXPECT_EQ(plan.compile_env.count("NVCC_APPEND_FLAGS"), 0u);
  EXPECT_EQ(plan.jobs.jobs, 8);
  EXPECT_EQ(plan.seed_languages, "CXX");
}

TEST(nvcc_append_flags, KeepsTheUsersFlagsBeforeTheThreads) {
  EXPECT_EQ(nvcc_append_flags(std::nullopt, 1), std::nullopt);
  EXPECT_EQ(nvcc_append_flags(std::nullopt, 3), "--threads=3");
  EXPECT_EQ(nvcc_append_flags("-lineinfo", 1), "-lineinfo");
  EXPECT_EQ(nvcc_append_flags("-lineinfo", 2), "-lineinfo --threads=2");
}

TEST(plan_compile, ConfigureCommandNamesTheToolchainAndTheCudaCompiler) {
  Fixture f;
  CompilePlan plan = f.plan(config::Backend::cuda);
  EXPECT_EQ(plan.generated, "/k/build/.kb/v/project");
  EXPECT_EQ(plan.cmake_dir, "/k/build/.kb/v/cmake-build");
  EXPECT_EQ(plan.configure_stamp, "/k/build/.kb/v/configure.args");
  std::vector<std::string> head = {"cmake", "-S", "/k/build/.kb/v/project", "-B", "/k/build/.kb/v/cmake-build", "-G", "Ninja",
                                   "-DCMAKE_BUILD_TYPE=Release"};
  EXPECT_TRUE(std::equal(head.begin(), head.end(), plan.configure.begin()));
  EXPECT_TRUE(contains(plan.configure, "-DKB_PROJECT_DIR=/k"));
  EXPECT_TRUE(contains(plan.configure, "-DKB_TORCH_INCLUDE_DIRS=/venv/torch/include;/venv/torch/include/api"));
  EXPECT_TRUE(contains(plan.configure, "-DKB_TORCH_LIBRARY_DIR=/venv/torch/lib"));
  EXPECT_TRUE(contains(plan.configure, "-DKB_PYTHON_INCLUDE_DIR=/usr/include/python3.11"));
  EXPECT_TRUE(contains(plan.configure, "-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc"));
  EXPECT_TRUE(contains(plan.configure, "-DCUDAToolkit_ROOT=/usr/local/cuda"));
  EXPECT_TRUE(contains(plan.configure, "-DKB_SYMBOL_ISOLATION=ON"));
  EXPECT_TRUE(plan.seed_configure);
  EXPECT_EQ(plan.seed_languages, "CXX CUDA");
  EXPECT_EQ(plan.configure_key.find("-DKB_PROJECT_DIR=/k\n"), plan.configure_key.find("-DKB_PROJECT_DIR"));
}

TEST(plan_compile, ArchsAndModulePath) {
  Fixture f;
  CompilePlan plan = f.plan(config::Backend::cuda);
  EXPECT_EQ(plan.archs, (std::vector<std::string>{"8.0", "9.0"}));
  EXPECT_EQ(plan.library, "/k/build/.kb/v/cmake-build/_k1_cuda_abc1234.abi3.so");
  EXPECT_NE(plan.files.at("CMakeLists.txt").find("-gencode=arch=compute_90,code=sm_90"), std::string::npos);
  EXPECT_TRUE(plan.files.count("registration.h"));
}

TEST(plan_compile, HeaderDependenciesJoinTheSystemIncludeDirectories) {
  Fixture f;
  f.facts.header_dependency_dirs = {"/cache/cutlass-3.9/include"};
  CompilePlan plan = f.plan(config::Backend::cuda);
  EXPECT_TRUE(contains(plan.configure,
                       "-DKB_TORCH_INCLUDE_DIRS=/venv/torch/include;/venv/torch/include/api;/cache/cutlass-3.9/include"));
}

TEST(plan_compile, HeaderCachePrecompilesIntoTheWorkDirectory) {
  Fixture f;
  f.facts.torch_header_sources = {"torch-ext/torch_binding.cpp"};
  CompilePlan plan = f.plan(config::Backend::cpu);
  EXPECT_TRUE(plan.header_cache);
  EXPECT_EQ(plan.pch_header, "/k/build/.kb/v/torch-pch/torch_pch.h");
  EXPECT_TRUE(contains(plan.configure, "-DKB_TORCH_PCH=/k/build/.kb/v/torch-pch/torch_pch.h"));
  EXPECT_TRUE(contains(plan.configure, "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"));
  EXPECT_NE(plan.files.at("CMakeLists.txt").find("torch-ext/torch_binding.cpp\"\n    APPEND PROPERTY COMPILE_OPTIONS -include"),
            std::string::npos);

  f.settings.header_cache = false;
  CompilePlan off = f.plan(config::Backend::cpu);
  EXPECT_FALSE(off.header_cache);
  EXPECT_TRUE(contains(off.configure, "-DKB_TORCH_PCH="));
  EXPECT_FALSE(contains(off.configure, "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"));
  EXPECT_EQ(off.files.at("CMakeLists.txt").find("APPEND PROPERTY COMPILE_OPTIONS -include"), std::string::npos);
}

TEST(plan_compile, StableAbiVariantsDoNotUseTheHeaderCache) {
  Fixture f;
  f.config = parse("stable-abi = \"2.10\"\n");
  f.facts.torch_header_sources = {"torch-ext/torch_binding.cpp"};
  auto v = f.variant(config::Backend::cpu);
  v.stable_abi = config::Version({2, 10});
  auto plan = plan_compile(f.settings, v, "_k1_cpu_abc1234", "/w", f.facts);
  ASSERT_TRUE(plan);
  EXPECT_FALSE(plan->header_cache);
  EXPECT_TRUE(contains(plan->configure, "-DKB_TORCH_PCH="));
}

TEST(plan_compile, PortableLinkEntersConfigureAndStamp) {
  Fixture f;
  CompilePlan without = f.plan(config::Backend::cpu);
  EXPECT_TRUE(contains(without.configure, "-DKB_PORTABLE_LINK_DIR="));
  EXPECT_TRUE(contains(without.configure, "-DKB_PORTABLE_SOURCES="));
  EXPECT_EQ(without.stamp_input.rfind("manylinux manylinux_2_28 portable\n", 0), 0u);

  PortableLink link;
  link.stub_dir = "/w/portable/stubs";
  link.support_source = "/w/portable/kb_portable.cpp";
  link.extra_libraries = {"libpthread.so.0", "libdl.so.2"};
  link.fingerprint = "f00d";
  f.facts.portable = link;
  CompilePlan with = f.plan(config::Backend::cpu);
  EXPECT_TRUE(contains(with.configure, "-DKB_PORTABLE_LINK_DIR=/w/portable/stubs"));
  EXPECT_TRUE(contains(with.configure, "-DKB_PORTABLE_SOURCES=/w/portable/kb_portable.cpp"));
  EXPECT_TRUE(contains(with.configure, "-DKB_PORTABLE_LIBRARIES=libpthread.so.0;libdl.so.2"));
  EXPECT_NE(with.stamp_input.find("portable f00d\n"), std::string::npos);
}

TEST(plan_compile, StrictManylinuxAndPolicyAreInTheStamp) {
  Fixture f;
  f.settings.manylinux = "manylinux_2_34";
  f.settings.strict_manylinux = true;
  f.settings.portable = false;
  CompilePlan plan = f.plan(config::Backend::cpu);
  EXPECT_EQ(plan.stamp_input.rfind("manylinux manylinux_2_34 strict\n", 0), 0u);
}

TEST(plan_compile, CcacheLaunchesCxxAndCudaCompiles) {
  Fixture f;
  f.facts.ccache = "/usr/bin/ccache";
  CompilePlan cuda = f.plan(config::Backend::cuda);
  EXPECT_TRUE(contains(cuda.configure, "-DCMAKE_CXX_COMPILER_LAUNCHER=/usr/bin/ccache"));
  EXPECT_TRUE(contains(cuda.configure, "-DCMAKE_CUDA_COMPILER_LAUNCHER=/usr/bin/ccache"));
  CompilePlan cpu = f.plan(config::Backend::cpu);
  EXPECT_TRUE(contains(cpu.configure, "-DCMAKE_CXX_COMPILER_LAUNCHER=/usr/bin/ccache"));
  EXPECT_FALSE(contains(cpu.configure, "-DCMAKE_CUDA_COMPILER_LAUNCHER=/usr/bin/ccache"));
  EXPECT_FALSE(cpu.remote_cache);
}

TEST(plan_compile, RemoteCacheNeedsCcacheAndSetsItsEnvironment) {
  Fixture f;
  f.settings.remote_cache = "redis://localhost:6379";
  EXPECT_FALSE(f.plan(config::Backend::cpu).remote_cache);
  f.facts.ccache = "/usr/bin/ccache";
  CompilePlan plan = f.plan(config::Backend::cpu);
  EXPECT_TRUE(plan.remote_cache);
  EXPECT_EQ(plan.stats_log, "/k/build/.kb/v/ccache-stats.log");
  EXPECT_EQ(plan.compile_env.at("CCACHE_REMOTE_STORAGE"), "redis://localhost:6379");
  EXPECT_EQ(plan.configure_env.count("CCACHE_REMOTE_STORAGE"), 0u);
}

TEST(plan_compile, SourceDateEpochForConfigureAndCompile) {
  Fixture f;
  CompilePlan plan = f.plan(config::Backend::cpu);
  EXPECT_EQ(plan.configure_env.at("SOURCE_DATE_EPOCH"), "1700000000");
  EXPECT_EQ(plan.compile_env.at("SOURCE_DATE_EPOCH"), "1700000000");
}

TEST(ninja_command, JobsAndOutputs) {
  CompilePlan plan;
  plan.cmake_dir = "/w/cmake-build";
  EXPECT_EQ(ninja_command(plan, 3), (std::vector<std::string>{"ninja", "-C", "/w/cmake-build", "-j", "3"}));
  EXPECT_EQ(ninja_command(plan, 1, {"a.o", "b.o"}),
            (std::vector<std::string>{"ninja", "-C", "/w/cmake-build", "-j", "1", "a.o", "b.o"}));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::builder
