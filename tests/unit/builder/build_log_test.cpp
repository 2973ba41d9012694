// Tests of the error lines a failed build step shows (builder/build_log.h).
#include "builder/build_log.h"

#include <gtest/gtest.h>

namespace kb::builder {
namespace {
namespace KB_UNITY_ID {

TEST(first_error_lines, ShowsARepeatedErrorOnce) {
  // g++ repeats an error in a template for each dtype it is instantiated with.
  std::string log =
      "[1/3] Building CXX object relu.o\n"
      "relu.cpp:12:5: error: expected ';' before 'return'\n"
      "In instantiation of 'void relu<float>()':\n"
      "relu.cpp:12:5: error: expected ';' before 'return'\n"
      "relu.cpp:12:5: error: expected ';' before 'return'\n"
      "FAILED: relu.o\n"
      "relu.cpp:12:5: error: expected ';' before 'return'\n";
  EXPECT_EQ(first_error_lines(log), (std::vector<std::string>{"relu.cpp:12:5: error: expected ';' before 'return'",
                                                              "FAILED: relu.o"}));
}

TEST(first_error_lines, KeepsAtMostEightLines) {
  std::string log;
  for (int i = 0; i < 20; ++i) log += "a.cpp:" + std::to_string(i) + ":1: error: x\n";
  EXPECT_EQ(first_error_lines(log).size(), 8u);
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::builder
