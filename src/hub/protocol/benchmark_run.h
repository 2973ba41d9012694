// The benchmark run document (docs/hub-benchmarks.md, format "kernels-benchmark/1") that
// `kernels benchmark --upload` posts to kernel-hub: parsed into typed values before the server
// stores it, and rendered back as the canonical JSON the server stores and serves (keys the
// format does not define are dropped). Every field is checked for its type and range; a bad one
// is an ErrorKind::invalid error naming it ("results[3].mean: expected a finite number >= 0"),
// which the server answers with 400. Pure (bytes in, values out): fuzz/fuzz_hub_benchmarks.cpp
// runs it directly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kb::hub::protocol {

inline constexpr std::string_view kBenchmarkFormat = "kernels-benchmark/1";
inline constexpr size_t kMaxBenchmarkString = 256;                // bytes of any string in the document
inline constexpr size_t kMaxBenchmarkResults = 1000;              // entries of `results`
inline constexpr uint64_t kMaxBenchmarkBody = uint64_t{1} << 20;  // bytes of one posted document

struct BenchmarkKernel {
  std::string repo_id;   // "namespace/name"
  std::string revision;  // as the client asked for it (branch, tag or commit)
  std::string variant;
  friend bool operator==(const BenchmarkKernel&, const BenchmarkKernel&) = default;
};

struct BenchmarkMachine {
  std::string cpu;
  std::optional<std::string> gpu;
  std::optional<std::string> driver;
  std::optional<std::string> cuda;
  std::string torch;
  std::string python;
  std::string platform;
  friend bool operator==(const BenchmarkMachine&, const BenchmarkMachine&) = default;
};

enum class BenchmarkTimer { cuda_events, monotonic };
std::string_view to_string(BenchmarkTimer timer);  // "cuda-events" / "monotonic"

struct BenchmarkSettings {
  int64_t iterations = 0;  // >= 1
  int64_t warmup = 0;      // >= 0
  BenchmarkTimer timer = BenchmarkTimer::monotonic;
  friend bool operator==(const BenchmarkSettings&, const BenchmarkSettings&) = default;
};

struct BenchmarkDevice {
  std::optional<double> copy_bandwidth_bytes_per_s;
  std::optional<double> peak_flops_per_s;
  std::optional<std::string> peak_source;
  friend bool operator==(const BenchmarkDevice&, const BenchmarkDevice&) = default;
};

// One benchmark case; times in milliseconds.
struct BenchmarkResult {
  std::string benchmark;  // the Benchmark class
  std::string case_name;  // "case"
  std::optional<bool> verified;
  std::string unit = "ms";
  double mean = 0, std = 0, min = 0, max = 0, q1 = 0, median = 0, q3 = 0;
  int64_t outliers = 0;
  int64_t samples = 0;
  std::optional<double> bytes;
  std::optional<double> flops;
  std::optional<double> bandwidth_fraction;
  std::optional<double> peak_fraction;
  friend bool operator==(const BenchmarkResult&, const BenchmarkResult&) = default;
};

struct BenchmarkRun {
  BenchmarkKernel kernel;
  BenchmarkMachine machine;
  BenchmarkSettings settings;
  BenchmarkDevice device;
  std::vector<BenchmarkResult> results;
  friend bool operator==(const BenchmarkRun&, const BenchmarkRun&) = default;

  // The hardware the run measured: the GPU's name, else the CPU's.
  const std::string& hardware() const { return machine.gpu ? *machine.gpu : machine.cpu; }
};

util::Result<BenchmarkRun> parse_benchmark_run(std::string_view body);
// Canonical JSON text (keys in the format's order, no whitespace);
// parse_benchmark_run(render_benchmark_run(run)) == run.
std::string render_benchmark_run(const BenchmarkRun& run);

}  // namespace kb::hub::protocol
