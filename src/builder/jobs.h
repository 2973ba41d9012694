// How many compile jobs one variant build may run (docs/cli.md `--cores`, `--max-jobs`): its share of
// the cores, divided by nvcc's own threads for CUDA (NVCC_THREADS), and capped so that the
// variants built at once stay inside a memory budget (a translation unit that includes torch
// takes over a gigabyte in the compiler; too many at once and the machine swaps or the kernel's
// OOM killer ends the build).
#pragma once

#include <optional>
#include <string>

#include "config/backend.h"

namespace kb::builder {

// Estimated peak memory of one compile job, in GiB (see jobs.cpp for the measurements).
double job_memory_gib(config::Backend backend, int nvcc_threads);

struct JobPlan {
  int jobs = 1;
  std::optional<std::string> note;  // set when the memory budget lowered the job count
};

// `cores`: jobs wanted for this variant; `concurrent_variants`: variants built at the same time
// (min of --max-jobs and the number of variants); `memory_budget_gib`: memory all their jobs
// together may use (none: no cap).
JobPlan plan_compile_jobs(int cores, config::Backend backend, int nvcc_threads, int concurrent_variants,
                          std::optional<double> memory_budget_gib);

// MemAvailable of /proc/meminfo in GiB; none where it cannot be read.
std::optional<double> available_memory_gib();

// NVCC_THREADS from the environment (nvcc's --threads for every CUDA unit); 1 when unset/invalid.
int nvcc_threads_from_env();
// Whether NVCC_THREADS is set (to anything): then it decides, not auto_nvcc_threads.
bool nvcc_threads_in_env();

// nvcc's --threads when NVCC_THREADS is not set: nvcc compiles a source's architectures one after
// the other unless given threads. A build is bounded by its slowest source far more often than by
// its number of sources (one heavy templated source among light ones), so every CUDA source gets
// a quarter of the cores as threads, at most one per architecture, however many sources there
// are: the job count is divided by the threads (plan_compile_jobs), so the cores are not
// oversubscribed, and the long pole compiles its architectures in parallel. 1 when fewer than 4
// cores.
int auto_nvcc_threads(int cores, int cuda_sources, int architectures);

}  // namespace kb::builder
