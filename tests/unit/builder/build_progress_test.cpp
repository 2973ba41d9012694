// Build progress (build_progress.h): the progress line of each step (golden), when a log gets a
// line for a long compile, the object of a compile command, and the compiles running in a
// directory.
#include "builder/build_progress.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "util/fs.h"

namespace kb::builder {
namespace {
namespace KB_UNITY_ID {

const std::filesystem::path golden_dir = std::filesystem::path(KB_TEST_DATA_DIR) / "unit" / "builder" / "golden";

TEST(format_elapsed, MinutesAndHours) {
  EXPECT_EQ(format_elapsed(0), "0:00");
  EXPECT_EQ(format_elapsed(7.9), "0:07");
  EXPECT_EQ(format_elapsed(754), "12:34");
  EXPECT_EQ(format_elapsed(3723), "1:02:03");
  EXPECT_EQ(format_elapsed(-1), "0:00");
}

// A variant's steps as a reporter shows them, from configure to done.
TEST(golden, ProgressLines) {
  const std::string v = "torch211-cxx11-cu130-x86_64-linux";
  std::string text;
  auto add = [&](VariantProgress p) { text += render_progress(v, p) + "\n"; };
  add({Stage::generate, 0.1, 0, 0, std::nullopt});
  add({Stage::configure, 0.4, 0, 0, std::nullopt});
  add({Stage::compile, 3.2, 0, 0, std::nullopt});
  add({Stage::compile, 9.0, 2, 21, RunningSource{"csrc/causal_conv1d_bwd.cu", 9.9}});
  add({Stage::compile, 11.0, 2, 21, RunningSource{"csrc/causal_conv1d_bwd.cu", 10.2}});
  add({Stage::compile, 215.5, 20, 21, RunningSource{"csrc/causal_conv1d_bwd.cu", 205.7}});
  add({Stage::link, 232.0, 21, 21, std::nullopt});
  add({Stage::check, 240.3, 21, 21, std::nullopt});
  add({Stage::done, 242.6, 21, 21, std::nullopt});
  add({Stage::up_to_date, 0.05, 0, 0, std::nullopt});
  add({Stage::failed, 3725.0, 3, 21, RunningSource{"csrc/a.cu", 30}});
  auto path = golden_dir / "progress_lines.txt";
  if (std::getenv("KB_REFRESH_GOLDEN")) {
    ASSERT_TRUE(util::write_file_atomic(path, text));
    return;
  }
  auto expected = util::read_file(path);
  ASSERT_TRUE(expected) << "missing golden file " << path;
  EXPECT_EQ(text, *expected);
}

TEST(long_compile_line_due, AfterTenSecondsThenEveryMinute) {
  EXPECT_FALSE(long_compile_line_due({"a.cu", 9.9}, std::nullopt));
  EXPECT_TRUE(long_compile_line_due({"a.cu", 10.0}, std::nullopt));
  EXPECT_FALSE(long_compile_line_due({"a.cu", 69.0}, 10.0));
  EXPECT_TRUE(long_compile_line_due({"a.cu", 70.5}, 10.0));
}

TEST(compile_output, ObjectAfterDashO) {
  EXPECT_EQ(compile_output({"/usr/bin/ccache", "/usr/bin/c++", "-O2", "-o", "CMakeFiles/kb_module.dir/k/a.cpp.o", "-c",
                            "/k/a.cpp"}),
            "CMakeFiles/kb_module.dir/k/a.cpp.o");
  // Ninja's `sh -c` gets the whole command as one argument.
  EXPECT_EQ(compile_output({"/bin/sh", "-c", "/usr/bin/c++ -o CMakeFiles/kb_module_unit_x.dir/k/b.cu.o -c /k/b.cu"}),
            "CMakeFiles/kb_module_unit_x.dir/k/b.cu.o");
  EXPECT_EQ(compile_output({"/usr/bin/c++", "-o", "_k_cpu_1.abi3.so", "a.o"}), std::nullopt);  // a link
  EXPECT_EQ(compile_output({"ld", "-r", "-o", "kernel-units/x.combined.o"}), std::nullopt);
  EXPECT_EQ(compile_output({"ninja", "-C", "/w"}), std::nullopt);
}

TEST(running_compiles, FindsAProcessWorkingInTheDirectory) {
  auto dir = std::filesystem::temp_directory_path() / "kb-running-compiles-test";
  std::filesystem::create_directories(dir);
  ASSERT_EQ(std::system(("cd '" + dir.string() + "' && sh -c 'sleep 3; true -o CMakeFiles/t.dir/a.cpp.o' &").c_str()), 0);
  std::vector<RunningCompile> running;
  for (int i = 0; i < 40 && running.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    running = running_compiles(dir);
  }
  ASSERT_EQ(running.size(), 1u);
  EXPECT_EQ(running[0].output, "CMakeFiles/t.dir/a.cpp.o");
  EXPECT_GE(running[0].seconds, 0.0);
  EXPECT_LT(running[0].seconds, 3.0);
  EXPECT_TRUE(running_compiles(dir / "elsewhere").empty());
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::builder
