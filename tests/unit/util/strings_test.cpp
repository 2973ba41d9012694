#include "util/strings.h"

#include <gtest/gtest.h>

using namespace kb::util;

TEST(split, KeepsEmptyParts) {
  EXPECT_EQ(split("a..b", '.'), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(split("", '.'), (std::vector<std::string>{""}));
}

TEST(trim, StripsBothEnds) { EXPECT_EQ(trim("  x y \n"), "x y"); }

TEST(edit_distance, CountsSingleEdits) {
  EXPECT_EQ(edit_distance("backend", "backends"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("biuld", "build"), 1u);  // a swap of neighbours is one edit
  EXPECT_EQ(edit_distance("ab", "ba"), 1u);
}

TEST(did_you_mean, SuggestsCloseKeysOnly) {
  std::vector<std::string> keys = {"backends", "license", "version", "python-depends"};
  EXPECT_EQ(did_you_mean("backend", keys), "backends");
  EXPECT_EQ(did_you_mean("licence", keys), "license");
  EXPECT_EQ(did_you_mean("python_depends", keys), "python-depends");
  EXPECT_EQ(did_you_mean("zzz", keys), std::nullopt);
}
