#include "builder/jobs.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace kb::builder {
namespace {

using config::Backend;

TEST(CompileJobs, NoBudgetKeepsTheCores) {
  auto plan = plan_compile_jobs(8, Backend::cpu, 1, 1, std::nullopt);
  EXPECT_EQ(plan.jobs, 8);
  EXPECT_FALSE(plan.note);
}

TEST(CompileJobs, AmpleBudgetKeepsTheCoresSilently) {
  auto plan = plan_compile_jobs(4, Backend::cpu, 1, 1, 64.0);
  EXPECT_EQ(plan.jobs, 4);
  EXPECT_FALSE(plan.note);
}

TEST(CompileJobs, BudgetCapsJobsAndSaysWhy) {
  // 6 GiB for one variant at 1.5 GiB per C++ job: 4 jobs, not 16.
  auto plan = plan_compile_jobs(16, Backend::cpu, 1, 1, 6.0);
  EXPECT_EQ(plan.jobs, 4);
  ASSERT_TRUE(plan.note);
  EXPECT_EQ(*plan.note,
            "4 compile job(s) instead of 16: memory budget 6.0 GiB shared by 1 variant build(s), about 1.5 GiB "
            "per job (--memory-budget to change)");
}

TEST(CompileJobs, ConcurrentVariantsShareTheBudget) {
  // Two variants at once: 8 GiB each, CUDA jobs of 2 GiB -> 4 jobs per variant.
  EXPECT_EQ(plan_compile_jobs(16, Backend::cuda, 1, 2, 16.0).jobs, 4);
  EXPECT_EQ(plan_compile_jobs(16, Backend::cuda, 1, 1, 16.0).jobs, 8);
}

TEST(CompileJobs, NeverBelowOneJob) {
  auto plan = plan_compile_jobs(8, Backend::cuda, 1, 4, 1.0);
  EXPECT_EQ(plan.jobs, 1);
  EXPECT_TRUE(plan.note);
}

TEST(CompileJobs, NvccThreadsDivideTheJobsAndCostMemory) {
  EXPECT_EQ(plan_compile_jobs(16, Backend::cuda, 4, 1, std::nullopt).jobs, 4);
  EXPECT_EQ(plan_compile_jobs(16, Backend::cpu, 4, 1, std::nullopt).jobs, 16);  // only nvcc uses them
  EXPECT_DOUBLE_EQ(job_memory_gib(Backend::cuda, 4), 2.0 + 3 * 0.75);
  // 9 GiB / 4.25 GiB per 4-thread nvcc job -> 2 jobs (of the 4 the cores allow).
  EXPECT_EQ(plan_compile_jobs(16, Backend::cuda, 4, 1, 9.0).jobs, 2);
}

TEST(CompileJobs, NvccThreadsFromEnvironment) {
  ::setenv("NVCC_THREADS", "3", 1);
  EXPECT_EQ(nvcc_threads_from_env(), 3);
  ::setenv("NVCC_THREADS", "x", 1);
  EXPECT_EQ(nvcc_threads_from_env(), 1);
  ::setenv("NVCC_THREADS", "0", 1);
  EXPECT_EQ(nvcc_threads_from_env(), 1);
  ::unsetenv("NVCC_THREADS");
  EXPECT_EQ(nvcc_threads_from_env(), 1);
}

TEST(CompileJobs, AvailableMemoryIsReadOnLinux) {
  auto available = available_memory_gib();
  ASSERT_TRUE(available);
  EXPECT_GT(*available, 0.0);
}

}  // namespace
}  // namespace kb::builder

TEST(auto_nvcc_threads, AQuarterOfTheCoresAtMostOneThreadPerArchitecture) {
  EXPECT_EQ(kb::builder::auto_nvcc_threads(16, 1, 4), 4);  // examples/relu on the GPU machine
  EXPECT_EQ(kb::builder::auto_nvcc_threads(16, 2, 4), 4);
  // Many sources too: the slowest one compiles its architectures in parallel (bench/heavy_bench.py).
  EXPECT_EQ(kb::builder::auto_nvcc_threads(16, 8, 4), 4);
  EXPECT_EQ(kb::builder::auto_nvcc_threads(16, 17, 2), 2);
  EXPECT_EQ(kb::builder::auto_nvcc_threads(8, 17, 4), 2);
  EXPECT_EQ(kb::builder::auto_nvcc_threads(4, 1, 4), 1);
  EXPECT_EQ(kb::builder::auto_nvcc_threads(64, 1, 3), 3);
  EXPECT_EQ(kb::builder::auto_nvcc_threads(2, 1, 4), 1);   // few cores: one source per core instead
  EXPECT_EQ(kb::builder::auto_nvcc_threads(16, 1, 1), 1);  // one architecture: nothing to split
  EXPECT_EQ(kb::builder::auto_nvcc_threads(16, 0, 4), 1);
}
