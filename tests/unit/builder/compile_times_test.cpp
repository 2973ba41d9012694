// Per-source compile times (compile_times.h): Ninja's log, this build's entries, the names of
// the sources, the build.log table and the slowest-sources text (golden), and the --json summary
// (build_report.h).
#include "builder/compile_times.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "builder/build_report.h"
#include "util/fs.h"

namespace kb::builder {
namespace {
namespace KB_UNITY_ID {

const std::filesystem::path golden_dir = std::filesystem::path(KB_TEST_DATA_DIR) / "unit" / "builder" / "golden";

// Refresh with KB_REFRESH_GOLDEN=1 builder_tests.
void expect_golden(const std::string& name, const std::string& actual) {
  auto path = golden_dir / name;
  if (std::getenv("KB_REFRESH_GOLDEN")) {
    ASSERT_TRUE(util::write_file_atomic(path, actual));
    return;
  }
  auto expected = util::read_file(path);
  ASSERT_TRUE(expected) << "missing golden file " << path;
  EXPECT_EQ(actual, *expected);
}

const std::string kBefore =
    "# ninja log v5\n"
    "0\t30512\t1700000000000000000\tCMakeFiles/kb_module_binding.dir/k/torch-ext/torch_binding.cpp.o\t1a\n"
    "5\t28010\t1700000000000000000\tCMakeFiles/kb_module_unit_relu.dir/k/relu/relu.cpp.o\t2b\n"
    "28011\t28300\t1700000000000000000\tkernel-units/relu.combined.o\t3c\n"
    "30513\t31000\t1700000000000000000\t_relu_cpu_1.abi3.so\t4d\n";

TEST(parse_ninja_log, LastRecordOfEachOutput) {
  auto log = parse_ninja_log(kBefore + "10\t900\t1700000000000000001\t_relu_cpu_1.abi3.so\t5e\nnot a record\n");
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log.at("_relu_cpu_1.abi3.so").start_ms, 10);
  EXPECT_EQ(log.at("_relu_cpu_1.abi3.so").end_ms, 900);
  EXPECT_EQ(log.at("CMakeFiles/kb_module_unit_relu.dir/k/relu/relu.cpp.o").end_ms, 28010);
}

TEST(compile_times, OnlyThisBuildsObjectsNamedByTheirSources) {
  auto before = parse_ninja_log(kBefore);
  auto after = parse_ninja_log(
      kBefore +
      "0\t1250\t1700000000000000002\tCMakeFiles/kb_module_unit_relu.dir/k/relu/relu.cpp.o\t2c\n"
      "0\t310\t1700000000000000002\tCMakeFiles/kb_module_binding.dir/kb_ops_id.cpp.o\t6f\n"
      "0\t1250\t1700000000000000002\tCMakeFiles/kb_module_unit_act.dir/k/act/relu/relu.cpp.o\t7a\n"
      "1251\t1400\t1700000000000000002\tkernel-units/relu.combined.o\t3d\n"
      "1401\t2000\t1700000000000000002\t_relu_cpu_2.abi3.so\t4e\n");
  auto times = compile_times(before, after, {"relu/relu.cpp", "act/relu/relu.cpp", "torch-ext/torch_binding.cpp"});
  EXPECT_EQ(times, (std::vector<SourceTime>{{"act/relu/relu.cpp", 1.25}, {"relu/relu.cpp", 1.25}, {"kb_ops_id.cpp", 0.31}}));
  EXPECT_TRUE(compile_times(after, after, {"relu/relu.cpp"}).empty());
}

TEST(compile_times, FirstBuildReadsEveryObject) {
  auto times = compile_times({}, parse_ninja_log(kBefore), {"relu/relu.cpp", "torch-ext/torch_binding.cpp"});
  EXPECT_EQ(times, (std::vector<SourceTime>{{"torch-ext/torch_binding.cpp", 30.512, 0}, {"relu/relu.cpp", 28.005, 0.005}}));
}

TEST(compile_times, StartedCountsFromThisBuildsFirstCompile) {
  auto before = parse_ninja_log(kBefore);
  auto after = parse_ninja_log(
      kBefore +
      "7000\t9500\t1700000000000000002\tCMakeFiles/kb_module_unit_relu.dir/k/relu/relu.cpp.o\t2c\n"
      "4000\t4310\t1700000000000000002\tCMakeFiles/kb_module_binding.dir/kb_ops_id.cpp.o\t6f\n");
  auto times = compile_times(before, after, {"relu/relu.cpp"});
  EXPECT_EQ(times, (std::vector<SourceTime>{{"relu/relu.cpp", 2.5, 3.0}, {"kb_ops_id.cpp", 0.31, 0}}));
}

// The slowest source, last to finish, listed after the light ones: it started when the first wave
// of light sources ended.
std::vector<SourceTime> late_heavy_source() {
  return {{"attention/heavy_bwd.cu", 44.9, 15.2}, {"torch-ext/torch_binding.cpp", 15.3, 0},
          {"attention/light_06.cu", 7.9, 7.4}, {"attention/light_00.cu", 7.1, 0.1}};
}

TEST(render_late_start_hint, NamesTheSlowestSourceOnlyWhenTheBuildWaitedForIt) {
  EXPECT_NE(render_late_start_hint(late_heavy_source()), "");
  auto early = late_heavy_source();
  early[0].started = 1.5;  // under 2 s: nothing to gain worth a hint
  EXPECT_EQ(render_late_start_hint(early), "");
  auto relative = late_heavy_source();
  relative[0] = {"attention/heavy_bwd.cu", 300.0, 20.0};  // under a tenth of its own time
  EXPECT_EQ(render_late_start_hint(relative), "");
  auto not_last = late_heavy_source();
  not_last.push_back({"attention/light_15.cu", 7.0, 55.0});  // another source finished after it
  EXPECT_EQ(render_late_start_hint(not_last), "");
  EXPECT_EQ(render_late_start_hint({{"relu/relu.cpp", 30.0, 5.0}}), "");  // nothing else ran
  EXPECT_EQ(render_late_start_hint({}), "");
}

std::vector<SourceTime> heavy_kernel() {
  return {{"csrc/causal_conv1d_bwd.cu", 205.712}, {"csrc/selective_scan_fwd_fp16.cu", 61.4},
          {"csrc/selective_scan_fwd_bf16.cu", 60.95}, {"csrc/selective_scan_bwd_fp32.cu", 58.0},
          {"torch-ext/torch_binding.cpp", 31.2}, {"csrc/causal_conv1d_fwd.cu", 12.04}, {"kb_ops_id.cpp", 0.3}};
}

TEST(golden, CompileTimesTexts) {
  expect_golden("slowest_sources.txt",
                render_slowest_sources("torch211-cxx11-cu130-x86_64-linux", heavy_kernel()) +
                    render_slowest_sources("torch211-cxx11-cpu-x86_64-linux", {{"relu/relu.cpp", 1.25}}) +
                    render_late_start_hint(late_heavy_source()));
  expect_golden("compile_times_table.txt", render_compile_times_table(heavy_kernel()) + render_compile_times_table({}) +
                                               render_late_start_hint(late_heavy_source()));
  EXPECT_EQ(render_slowest_sources("v", {}), "");
}

TEST(golden, SummaryJson) {
  BuildSummary summary;
  summary.built = {"torch211-cxx11-cpu-x86_64-linux"};
  summary.up_to_date = {"torch-universal"};
  summary.not_built = {"torch211-cxx11-cu130-x86_64-linux"};
  summary.compile_times["torch211-cxx11-cpu-x86_64-linux"] = {{"relu/relu.cpp", 1.2504, 0.2}, {"kb_ops_id.cpp", 0.31, 0}};
  expect_golden("summary.json", render_summary_json(summary));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::builder
