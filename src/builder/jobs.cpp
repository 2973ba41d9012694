#include "builder/jobs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kb::builder {

namespace {

// Peak resident memory measured with /usr/bin/time -v on examples/relu (torch 2.11, gcc 12,
// nvcc 13.0): cc1plus on a torch-including .cpp 1.1 GiB; nvcc on a torch-including .cu with four
// architectures 1.6 GiB at --threads 1. Rounded up: headers grow with every torch release.
constexpr double kCxxJobGiB = 1.5;
constexpr double kCudaJobGiB = 2.0;
// Each further nvcc thread compiles one more architecture at once (cicc + ptxas).
constexpr double kPerNvccThreadGiB = 0.75;

}  // namespace

double job_memory_gib(config::Backend backend, int nvcc_threads) {
  switch (backend) {
    case config::Backend::cuda:
      return kCudaJobGiB + kPerNvccThreadGiB * std::max(0, nvcc_threads - 1);
    case config::Backend::rocm:
    case config::Backend::xpu:
      return kCudaJobGiB;
    default:
      return kCxxJobGiB;
  }
}

JobPlan plan_compile_jobs(int cores, config::Backend backend, int nvcc_threads, int concurrent_variants,
                          std::optional<double> memory_budget_gib) {
  JobPlan plan;
  int jobs = std::max(1, cores);
  // nvcc --threads N runs N compilations inside one job: count them against the cores.
  if (backend == config::Backend::cuda && nvcc_threads > 1) jobs = std::max(1, jobs / nvcc_threads);
  if (memory_budget_gib) {
    double per_job = job_memory_gib(backend, nvcc_threads);
    double share = *memory_budget_gib / std::max(1, concurrent_variants);
    int fit = std::max(1, static_cast<int>(std::floor(share / per_job)));
    if (fit < jobs) {
      char text[256];
      std::snprintf(text, sizeof text,
                    "%d compile job(s) instead of %d: memory budget %.1f GiB shared by %d variant build(s), "
                    "about %.1f GiB per job (--memory-budget to change)",
                    fit, jobs, *memory_budget_gib, std::max(1, concurrent_variants), per_job);
      plan.note = text;
      jobs = fit;
    }
  }
  plan.jobs = jobs;
  return plan;
}

std::optional<double> available_memory_gib() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    long long kib = 0;
    if (fields >> kib && kib > 0) return static_cast<double>(kib) / (1024.0 * 1024.0);
  }
  return std::nullopt;
}

int nvcc_threads_from_env() {
  const char* value = std::getenv("NVCC_THREADS");
  if (!value || !*value) return 1;
  char* end = nullptr;
  long threads = std::strtol(value, &end, 10);
  if (*end != '\0' || threads < 1 || threads > 1024) return 1;
  return static_cast<int>(threads);
}

bool nvcc_threads_in_env() {
  const char* value = std::getenv("NVCC_THREADS");
  return value && *value;
}

int auto_nvcc_threads(int cores, int cuda_sources, int architectures) {
  if (cores < 4 || cuda_sources < 1 || architectures < 2) return 1;
  return std::clamp(cores / 4, 1, architectures);
}

}  // namespace kb::builder
