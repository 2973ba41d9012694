// The benchmark run document's parser and canonical rendering (hub/protocol/benchmark_run.h).
#include "hub/protocol/benchmark_run.h"

#include <gtest/gtest.h>

#include "hub/protocol/names.h"

namespace kb::hub::protocol {
namespace {
namespace KB_UNITY_ID {

const char* kDocument = R"({"format": "kernels-benchmark/1",
  "kernel": {"repo_id": "acme/relu", "revision": "v1", "variant": "torch211-cxx11-cu126-x86_64-linux"},
  "machine": {"cpu": "EPYC", "gpu": "H100", "driver": "580.1", "cuda": "12.6", "torch": "2.11.0",
              "python": "3.12.3", "platform": "Linux"},
  "settings": {"iterations": 100, "warmup": 10, "timer": "cuda-events"},
  "device": {"copy_bandwidth_bytes_per_s": 2.9e12, "peak_flops_per_s": null, "peak_source": null},
  "results": [{"benchmark": "Relu", "case": "small", "verified": null, "unit": "ms", "mean": 0.02, "std": 0.001,
               "min": 0.018, "max": 0.03, "q1": 0.019, "median": 0.02, "q3": 0.021, "outliers": 2, "samples": 100,
               "bytes": 8388608, "flops": null, "bandwidth_fraction": 0.14, "peak_fraction": null, "extra": 1}],
  "unknown": "dropped"})";

TEST(ParseBenchmarkRun, ReadsEveryField) {
  auto run = parse_benchmark_run(kDocument);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->kernel.repo_id, "acme/relu");
  EXPECT_EQ(run->kernel.revision, "v1");
  EXPECT_EQ(run->machine.gpu, "H100");
  EXPECT_EQ(run->hardware(), "H100");
  EXPECT_EQ(run->settings.timer, BenchmarkTimer::cuda_events);
  EXPECT_EQ(run->device.copy_bandwidth_bytes_per_s, 2.9e12);
  EXPECT_FALSE(run->device.peak_flops_per_s);
  ASSERT_EQ(run->results.size(), 1u);
  EXPECT_FALSE(run->results[0].verified);
  EXPECT_EQ(run->results[0].bytes, 8388608.0);
  EXPECT_EQ(run->results[0].samples, 100);
}

TEST(RenderBenchmarkRun, RoundTripsAndDropsUnknownMembers) {
  auto run = parse_benchmark_run(kDocument);
  ASSERT_TRUE(run);
  std::string text = render_benchmark_run(*run);
  EXPECT_EQ(text.find("unknown"), std::string::npos);
  EXPECT_EQ(text.find("extra"), std::string::npos);
  EXPECT_EQ(text.rfind("{\"format\":\"kernels-benchmark/1\",\"kernel\":{\"repo_id\":\"acme/relu\"", 0), 0u);
  auto again = parse_benchmark_run(text);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(*again, *run);
  EXPECT_EQ(render_benchmark_run(*again), text);
}

TEST(ParseBenchmarkRun, ErrorsNameTheField) {
  auto error_of = [](std::string from, std::string to) {
    std::string text = kDocument;
    auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    auto run = parse_benchmark_run(text);
    return run ? std::string("accepted") : run.error().message;
  };
  EXPECT_EQ(error_of("\"iterations\": 100", "\"iterations\": 0"), "settings.iterations: expected an integer >= 1");
  EXPECT_EQ(error_of("\"warmup\": 10", "\"warmup\": -1"), "settings.warmup: expected an integer >= 0");
  EXPECT_EQ(error_of("\"mean\": 0.02", "\"mean\": -0.02"), "results[0].mean: expected a finite number >= 0");
  EXPECT_EQ(error_of("\"mean\": 0.02", "\"mean\": 0.5"), "results[0].mean: expected a value between min and max");
  EXPECT_EQ(error_of("\"q1\": 0.019", "\"q1\": 0.025"), "results[0].median: expected min <= q1 <= median <= q3 <= max");
  EXPECT_EQ(error_of("\"outliers\": 2", "\"outliers\": 101"), "results[0].outliers: more outliers than samples");
  EXPECT_EQ(error_of("\"unit\": \"ms\"", "\"unit\": \"us\""), "results[0].unit: expected \"ms\"");
  EXPECT_EQ(error_of("\"timer\": \"cuda-events\"", "\"timer\": \"clock\""),
            "settings.timer: expected \"cuda-events\" or \"monotonic\"");
  EXPECT_EQ(error_of("\"gpu\": \"H100\"", "\"gpu\": 1"), "machine.gpu: expected a string");
  EXPECT_EQ(error_of("\"cpu\": \"EPYC\"", "\"cpu\": \"" + std::string(257, 'x') + "\""),
            "machine.cpu: longer than 256 bytes");
  EXPECT_EQ(error_of("\"repo_id\": \"acme/relu\"", "\"repo_id\": \"acme\""),
            "kernel.repo_id: " + check_repo_id("acme").error().message);
  EXPECT_EQ(error_of("\"verified\": null", "\"verified\": 1"), "results[0].verified: expected true, false or null");
  EXPECT_EQ(error_of("\"kernels-benchmark/1\"", "\"kernels-benchmark/0\""), "format: expected \"kernels-benchmark/1\"");
  EXPECT_EQ(error_of("\"results\": [", "\"results\": 3, \"x\": ["), "results: expected an array");
  // Rounding of statistics computed in floating point is tolerated.
  EXPECT_EQ(error_of("\"mean\": 0.02", "\"mean\": 0.0300000000000000001"), "accepted");
}

TEST(ParseBenchmarkRun, LimitsBodyAndResults) {
  EXPECT_EQ(parse_benchmark_run(std::string(kMaxBenchmarkBody + 1, ' ')).error().message,
            "body: larger than 1048576 bytes");
  EXPECT_EQ(parse_benchmark_run("[1]").error().message, "body: expected a JSON object");
  EXPECT_EQ(parse_benchmark_run(std::string(100, '[') + std::string(100, ']')).error().message,
            "body: JSON nested deeper than 32 levels");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::protocol
