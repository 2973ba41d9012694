// The card context (the Python sources it reads) and the init scaffold's CARD.md template
// filled with a context (golden).
#include "codegen/card/card_context.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "util/fs.h"

namespace kb::codegen::card {
namespace {
namespace KB_UNITY_ID {

using templating::Context;
using templating::Value;

TEST(python_all_list, ReadsFirstTopLevelAssignment) {
  EXPECT_EQ(*python_all_list("import x\n__all__ = [\n  \"relu\",  # c\n  'layers',\n]\n"),
            (std::vector<std::string>{"relu", "layers"}));
  EXPECT_FALSE(python_all_list("    __all__ = ['x']\n").has_value());
  EXPECT_EQ(python_top_level_classes("class ReLU(nn.Module):\n  class Inner: pass\nclass Gelu:\n"),
            (std::vector<std::string>{"ReLU", "Gelu"}));
}

TEST(render_template, InitTemplateGolden) {
  auto source = util::read_file(std::filesystem::path(KB_TEST_DATA_DIR) / ".." / "templates" / "init" / "CARD.md");
  ASSERT_TRUE(source.ok());
  // The init scaffold stores the template inside a raw block; unwrap it as `init` does.
  auto unwrapped = templating::render_template(*source, {}, "init");
  ASSERT_TRUE(unwrapped.ok());
  Context c{{"repo_id", Value::of(std::string("acme/relu"))}, {"version", Value::of(int64_t{1})},
            {"license", Value::of(std::string("apache-2.0"))}, {"functions", Value::strings({"relu"})},
            {"layers", Value::strings({"ReLU"})}, {"has_benchmark", Value::of(false)}};
  auto card = templating::render_template(*unwrapped, c, "CARD.md");
  ASSERT_TRUE(card.ok());
  auto golden = util::read_file(std::filesystem::path(KB_TEST_DATA_DIR) / "unit" / "card" / "golden" / "init_card.md");
  if (!golden.ok()) {
    ASSERT_TRUE(util::write_file_atomic(std::filesystem::path(KB_TEST_DATA_DIR) / "unit" / "card" / "golden" / "init_card.md", *card).ok());
    GTEST_SKIP() << "golden written";
  }
  EXPECT_EQ(*card, *golden);
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::codegen::card
