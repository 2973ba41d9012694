// The compile start order (start_order.h): the objects that took longest in the last build move
// to the front of build.ninja, longest first; everything else stays as it was.
#include "builder/start_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace kb::builder {
namespace {
namespace KB_UNITY_ID {

// The shape of a build.ninja that CMake writes: a header of bindings and an include, then per
// target a comment block, an order-only phony and one statement per object, then the link.
const std::string kManifest =
    "ninja_required_version = 1.5\n"
    "CONFIGURATION = Release\n"
    "include CMakeFiles/rules.ninja\n"
    "\n"
    "#############################################\n"
    "# Order-only phony target for kb_module_unit_attention\n"
    "\n"
    "build cmake_object_order_depends_target_kb_module_unit_attention: phony || cmake_object_order_depends_target_x\n"
    "\n"
    "build CMakeFiles/unit.dir/attention/light_00.cu.o: CUDA_COMPILER__unit_Release /p/attention/light_00.cu || "
    "cmake_object_order_depends_target_kb_module_unit_attention\n"
    "  DEP_FILE = CMakeFiles/unit.dir/attention/light_00.cu.o.d\n"
    "  FLAGS = -O3\n"
    "\n"
    "build CMakeFiles/unit.dir/attention/light_01.cu.o: CUDA_COMPILER__unit_Release /p/attention/light_01.cu\n"
    "  FLAGS = -O3\n"
    "\n"
    "build CMakeFiles/unit.dir/attention/heavy$ bwd.cu.o: CUDA_COMPILER__unit_Release /p/attention/heavy$ bwd.cu\n"
    "  FLAGS = -O3\n"
    "\n"
    "#############################################\n"
    "# Link the module\n"
    "\n"
    "build module.so: CXX_MODULE_LIBRARY_LINKER__kb_module_Release CMakeFiles/unit.dir/attention/light_00.cu.o "
    "CMakeFiles/unit.dir/attention/light_01.cu.o CMakeFiles/unit.dir/attention/heavy$ bwd.cu.o\n"
    "  LINK_FLAGS = -shared\n";

const std::string kLight0 = "CMakeFiles/unit.dir/attention/light_00.cu.o";
const std::string kLight1 = "CMakeFiles/unit.dir/attention/light_01.cu.o";
const std::string kHeavy = "CMakeFiles/unit.dir/attention/heavy bwd.cu.o";

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    out.push_back(text.substr(start, end - start));
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

// The statements of `manifest` that compile objects, by their first output, in file order.
std::vector<std::string> object_order(const std::string& manifest) {
  std::vector<std::string> out;
  for (const auto& line : lines(manifest)) {
    std::string output = first_output(line);
    if (output.size() > 2 && output.substr(output.size() - 2) == ".o") out.push_back(output);
  }
  return out;
}

TEST(object_outputs, NamesTheObjectsOfTheBuildStatements) {
  // Not the phony order-only target, not the module, not a binding's value.
  EXPECT_EQ(object_outputs(kManifest), (std::set<std::string>{kLight0, kLight1, kHeavy}));
  EXPECT_TRUE(object_outputs("  OBJECT = x.o\n# build y.o: CXX y.cpp\n").empty());
}

TEST(first_output, UnescapesAndStopsAtTheColon) {
  EXPECT_EQ(first_output("build a$ b$:c$$d.o: CXX x.cpp"), "a b:c$d.o");
  EXPECT_EQ(first_output("build out.o | implicit.o: CXX x.cpp"), "out.o");
  EXPECT_EQ(first_output("  FLAGS = -O3"), "");
  EXPECT_EQ(first_output("rule CXX"), "");
}

TEST(longest_first, MovesTheLongestObjectsToTheFrontAndKeepsTheRest) {
  auto order = longest_first(kManifest, {{kLight0, 7.5}, {kLight1, 8.0}, {kHeavy, 51.2}, {"module.so", 3.0}});
  ASSERT_TRUE(order);
  EXPECT_EQ(order->first, (std::vector<std::string>{kHeavy, kLight1, kLight0}));
  EXPECT_EQ(object_order(order->manifest), (std::vector<std::string>{kHeavy, kLight1, kLight0}));
  // Each statement moves whole (its bindings with it) and the link line is untouched.
  EXPECT_NE(order->manifest.find("heavy$ bwd.cu\n  FLAGS = -O3\nbuild CMakeFiles/unit.dir/attention/light_01.cu.o"),
            std::string::npos)
      << order->manifest;
  EXPECT_NE(order->manifest.find(
                "build module.so: CXX_MODULE_LIBRARY_LINKER__kb_module_Release CMakeFiles/unit.dir/attention/light_00.cu.o "
                "CMakeFiles/unit.dir/attention/light_01.cu.o CMakeFiles/unit.dir/attention/heavy$ bwd.cu.o\n"),
            std::string::npos);
  // The same lines, only in another order.
  auto sorted_lines = [](const std::string& text) {
    auto all = lines(text);
    std::sort(all.begin(), all.end());
    return all;
  };
  EXPECT_EQ(sorted_lines(order->manifest), sorted_lines(kManifest));
  // Applied again with the same times, nothing moves.
  EXPECT_FALSE(longest_first(order->manifest, {{kLight0, 7.5}, {kLight1, 8.0}, {kHeavy, 51.2}}));
}

TEST(longest_first, NothingWithoutTimesForTwoObjectsOrWhenAlreadyLongestFirst) {
  EXPECT_FALSE(longest_first(kManifest, {}));
  EXPECT_FALSE(longest_first(kManifest, {{kHeavy, 51.2}, {"module.so", 3.0}}));
  EXPECT_FALSE(longest_first(kManifest, {{kLight0, 9.0}, {kLight1, 8.0}, {kHeavy, 1.0}}));
  // Equal times keep the file's order.
  EXPECT_FALSE(longest_first(kManifest, {{kLight0, 2.0}, {kLight1, 2.0}, {kHeavy, 2.0}}));
}

TEST(longest_first, ObjectsWithoutATimeStartAfterThoseWithOne) {
  auto order = longest_first(kManifest, {{kLight1, 8.0}, {kHeavy, 51.2}});
  ASSERT_TRUE(order);
  EXPECT_EQ(object_order(order->manifest), (std::vector<std::string>{kHeavy, kLight1, kLight0}));
  // Already in time order, but behind an object without one: they move before it.
  auto behind = longest_first(kManifest, {{kLight1, 60.0}, {kHeavy, 51.2}});
  ASSERT_TRUE(behind);
  EXPECT_EQ(object_order(behind->manifest), (std::vector<std::string>{kLight1, kHeavy, kLight0}));
}

TEST(longest_first, RefusesToMoveAStatementAcrossATopLevelLine) {
  std::string manifest = kManifest;
  manifest.insert(manifest.find("build CMakeFiles/unit.dir/attention/heavy"), "FLAGS = -O0\n");
  EXPECT_FALSE(longest_first(manifest, {{kLight0, 7.5}, {kHeavy, 51.2}}));
  // One after the statements that would move does not matter.
  std::string after = kManifest + "default module.so\n";
  EXPECT_TRUE(longest_first(after, {{kLight0, 7.5}, {kHeavy, 51.2}}));
}

TEST(longest_first, KeepsAContinuedBuildLineWhole) {
  std::string manifest = kManifest;
  std::string line = "build CMakeFiles/unit.dir/attention/heavy$ bwd.cu.o: CUDA_COMPILER__unit_Release /p/attention/heavy$ bwd.cu\n";
  manifest.replace(manifest.find(line), line.size(),
                   "build CMakeFiles/unit.dir/attention/heavy$ bwd.cu.o: $\nCUDA_COMPILER__unit_Release /p/attention/heavy$ bwd.cu\n");
  auto order = longest_first(manifest, {{kLight0, 7.5}, {kHeavy, 51.2}});
  ASSERT_TRUE(order);
  EXPECT_EQ(order->manifest.find("build CMakeFiles/unit.dir/attention/heavy$ bwd.cu.o: $\nCUDA_COMPILER__unit_Release "
                                 "/p/attention/heavy$ bwd.cu\n  FLAGS = -O3\n"),
            order->manifest.find("build CMakeFiles/unit.dir/attention/heavy"));
  EXPECT_LT(order->manifest.find("heavy$ bwd.cu.o: $"), order->manifest.find("light_00.cu.o: CUDA"));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::builder
