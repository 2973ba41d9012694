// KB_TRY and KB_TRY_ASSIGN: the error of a Result<T> returned to the caller unchanged, the value
// moved into its target, and nothing after a failure evaluated.
#include "util/result.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace kb::util {
namespace {
namespace KB_UNITY_ID {

Result<std::string> text_or_error(bool ok) {
  if (!ok) return Error(ErrorKind::not_found, "no text").with_hint("write one");
  return std::string("text");
}

Result<std::size_t> length_of(bool ok, int& steps_after) {
  KB_TRY_ASSIGN(auto text, text_or_error(ok));
  ++steps_after;
  return text.size();
}

TEST(KbTryAssign, DeclaresTheValue) {
  int steps_after = 0;
  auto length = length_of(true, steps_after);
  ASSERT_TRUE(length.ok());
  EXPECT_EQ(*length, 4U);
  EXPECT_EQ(steps_after, 1);
}

TEST(KbTryAssign, ReturnsTheErrorUnchangedAndStops) {
  int steps_after = 0;
  auto length = length_of(false, steps_after);
  ASSERT_FALSE(length.ok());
  EXPECT_EQ(length.error().kind, ErrorKind::not_found);
  EXPECT_EQ(length.error().message, "no text");
  EXPECT_EQ(length.error().hints, std::vector<std::string>{"write one"});
  EXPECT_EQ(steps_after, 0);
}

Result<std::unique_ptr<int>> owned(int value) { return std::make_unique<int>(value); }

Result<int> sum_of_owned() {
  // A move-only value, twice in one scope, the second into an existing variable.
  KB_TRY_ASSIGN(auto first, owned(2));
  std::unique_ptr<int> second;
  KB_TRY_ASSIGN(second, owned(3));
  return *first + *second;
}

TEST(KbTryAssign, MovesMoveOnlyValuesIntoNewAndExistingVariables) {
  auto sum = sum_of_owned();
  ASSERT_TRUE(sum.ok());
  EXPECT_EQ(*sum, 5);
}

struct Named {
  std::string name;
};

Status fill(Named& named, bool ok) {
  // A member as the target, in a function returning Status, with a comma in the expression.
  KB_TRY_ASSIGN(named.name, ok ? text_or_error(true) : Result<std::string>(Error("refused, twice")));
  return {};
}

TEST(KbTryAssign, AssignsAMemberFromAStatusFunction) {
  Named named;
  ASSERT_TRUE(fill(named, true).ok());
  EXPECT_EQ(named.name, "text");
  Named untouched{"before"};
  auto status = fill(untouched, false);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message, "refused, twice");
  EXPECT_EQ(untouched.name, "before");
}

Status checked(bool ok, int& steps_after) {
  KB_TRY(text_or_error(ok));
  ++steps_after;
  return {};
}

TEST(KbTry, ReturnsTheErrorAndStops) {
  int steps_after = 0;
  EXPECT_TRUE(checked(true, steps_after).ok());
  EXPECT_EQ(steps_after, 1);
  auto status = checked(false, steps_after);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message, "no text");
  EXPECT_EQ(steps_after, 1);
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::util
