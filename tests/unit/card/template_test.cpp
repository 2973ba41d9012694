// Card template rendering: the Jinja subset, trim_blocks, raw, errors; the init template golden.
#include "codegen/card/card_context.h"
#include "codegen/card/template.h"

#include <gtest/gtest.h>

#include "util/fs.h"

namespace kb::codegen::card {
namespace {

std::string render(const std::string& source, const Context& context = {}) {
  auto out = render_template(source, context, "CARD.md");
  EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().message);
  return out.ok() ? *out : "";
}

TEST(render_template, variables_conditions_loops_and_trim_blocks) {
  Context c{{"name", Value::of(std::string("relu"))}, {"items", Value::strings({"a", "b"})}, {"n", Value::of(int64_t{2})}};
  EXPECT_EQ(render("x {{ name }} {{ n }}\n", c), "x relu 2\n");
  EXPECT_EQ(render("{% for i in items %}\n- {{ i }}{% if not loop.last %},{% endif %}\n{% endfor %}\n", c), "- a,- b");
  EXPECT_EQ(render("{% if missing %}\nA\n{% elif name == \"relu\" %}\nB\n{% else %}\nC\n{% endif %}\n", c), "B\n");
  EXPECT_EQ(render("{{ items[0] }} {{ items | join(\", \") }} {{ items | length }} {{ name | upper }}", c), "a a, b 2 RELU");
  EXPECT_EQ(render("a  {%- if true -%}  b  {%- endif %}", c), "ab");
  EXPECT_EQ(render("{# note #}\nx"), "x");
}

TEST(render_template, raw_blocks_are_literal) {
  EXPECT_EQ(render("{% raw %}\n{{ x }} {% if %}\n{% endraw %}\nend"), "{{ x }} {% if %}\nend");
}

TEST(render_template, reports_syntax_errors_with_line) {
  auto unclosed = render_template("a\n{% if x %}\nb", {}, "CARD.md");
  ASSERT_FALSE(unclosed.ok());
  EXPECT_EQ(unclosed.error().message, "CARD.md:2: `{% if %}` without `{% endif %}`");
  EXPECT_FALSE(render_template("{{ a | nosuchfilter }}", {}, "t").ok());
  EXPECT_FALSE(render_template("{% frobnicate %}", {}, "t").ok());
  EXPECT_FALSE(render_template("{{ (((((", {}, "t").ok());
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += "{% if x %}";
  EXPECT_FALSE(render_template(deep, {}, "t").ok());
  std::string nested(5000, '(');
  EXPECT_FALSE(render_template("{{ " + nested + " }}", {}, "t").ok());
}

TEST(python_all_list, reads_first_top_level_assignment) {
  EXPECT_EQ(*python_all_list("import x\n__all__ = [\n  \"relu\",  # c\n  'layers',\n]\n"),
            (std::vector<std::string>{"relu", "layers"}));
  EXPECT_FALSE(python_all_list("    __all__ = ['x']\n").has_value());
  EXPECT_EQ(python_top_level_classes("class ReLU(nn.Module):\n  class Inner: pass\nclass Gelu:\n"),
            (std::vector<std::string>{"ReLU", "Gelu"}));
}

TEST(render_template, init_template_golden) {
  auto source = util::read_file(std::string(KB_TEST_DATA_DIR) + "/../templates/init/CARD.md");
  ASSERT_TRUE(source.ok());
  // The init scaffold stores the template inside a raw block; unwrap it as `init` does.
  auto unwrapped = render_template(*source, {}, "init");
  ASSERT_TRUE(unwrapped.ok());
  Context c{{"repo_id", Value::of(std::string("acme/relu"))}, {"version", Value::of(int64_t{1})},
            {"license", Value::of(std::string("apache-2.0"))}, {"functions", Value::strings({"relu"})},
            {"layers", Value::strings({"ReLU"})}, {"has_benchmark", Value::of(false)}};
  auto card = render_template(*unwrapped, c, "CARD.md");
  ASSERT_TRUE(card.ok());
  auto golden = util::read_file(std::string(KB_TEST_DATA_DIR) + "/unit/card/golden/init_card.md");
  if (!golden.ok()) {
    ASSERT_TRUE(util::write_file_atomic(std::string(KB_TEST_DATA_DIR) + "/unit/card/golden/init_card.md", *card).ok());
    GTEST_SKIP() << "golden written";
  }
  EXPECT_EQ(*card, *golden);
}

}  // namespace
}  // namespace kb::codegen::card
