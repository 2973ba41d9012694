// libFuzzer target for kernel-hub's benchmark run document (hub/protocol/benchmark_run.h): the
// whole input is a posted body. Nothing may crash, hang or trip the sanitizers, and an accepted
// document must satisfy what the server and the pages rely on (abort otherwise):
// - every number is finite and >= 0, the order statistics are ordered (up to rounding);
// - every string is at most kMaxBenchmarkString bytes; at most kMaxBenchmarkResults results;
// - the canonical rendering parses back to the same run and renders to the same bytes.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "hub/protocol/benchmark_run.h"

namespace {

using namespace kb::hub::protocol;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "invariant broken: %s\n", what);
  std::abort();
}

void check_number(double value) {
  if (!std::isfinite(value) || value < 0) fail("number");
}

void check_string(const std::string& text) {
  if (text.size() > kMaxBenchmarkString) fail("string length");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  auto run = parse_benchmark_run(body);
  if (!run) return 0;
  for (const auto* text : {&run->kernel.repo_id, &run->kernel.revision, &run->kernel.variant, &run->machine.cpu,
                           &run->machine.torch, &run->machine.python, &run->machine.platform}) {
    check_string(*text);
  }
  if (run->results.size() > kMaxBenchmarkResults) fail("result count");
  for (const auto& r : run->results) {
    check_string(r.benchmark);
    check_string(r.case_name);
    for (double value : {r.mean, r.std, r.min, r.max, r.q1, r.median, r.q3}) check_number(value);
    if (r.q1 > r.median * (1 + 1e-6) + 1e-300 || r.median > r.q3 * (1 + 1e-6) + 1e-300) fail("order statistics");
    if (r.samples < 1 || r.outliers < 0 || r.outliers > r.samples) fail("counts");
  }
  std::string rendered = render_benchmark_run(*run);
  auto again = parse_benchmark_run(rendered);
  if (!again) fail("canonical rendering refused");
  if (!(*again == *run)) fail("round trip");
  if (render_benchmark_run(*again) != rendered) fail("rendering not canonical");
  return 0;
}
