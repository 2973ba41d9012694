#include "util/embedded.h"

#include <gtest/gtest.h>

using namespace kb::util;

TEST(find_embedded, FindsAFileByItsWholePath) {
  const std::vector<EmbeddedFile> files = {{"a.json", "{}"}, {"dir/b.py", "print()"}};
  EXPECT_EQ(find_embedded(files, "dir/b.py"), std::optional<std::string_view>("print()"));
  EXPECT_EQ(find_embedded(files, "b.py"), std::nullopt);
  EXPECT_EQ(find_embedded({}, "a.json"), std::nullopt);
}
