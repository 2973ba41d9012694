// The template engine: the Jinja subset, trim_blocks, raw, syntax errors, strict undefined names.
#include "codegen/templating/template.h"

#include <gtest/gtest.h>

namespace kb::codegen::templating {
namespace {
namespace KB_UNITY_ID {

std::string render(const std::string& source, const Context& context = {}) {
  auto out = render_template(source, context, "CARD.md");
  EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().message);
  return out.ok() ? *out : "";
}

TEST(render_template, VariablesConditionsLoopsAndTrimBlocks) {
  Context c{{"name", Value::of(std::string("relu"))}, {"items", Value::strings({"a", "b"})}, {"n", Value::of(int64_t{2})}};
  EXPECT_EQ(render("x {{ name }} {{ n }}\n", c), "x relu 2\n");
  EXPECT_EQ(render("{% for i in items %}\n- {{ i }}{% if not loop.last %},{% endif %}\n{% endfor %}\n", c), "- a,- b");
  EXPECT_EQ(render("{% if missing %}\nA\n{% elif name == \"relu\" %}\nB\n{% else %}\nC\n{% endif %}\n", c), "B\n");
  EXPECT_EQ(render("{{ items[0] }} {{ items | join(\", \") }} {{ items | length }} {{ name | upper }}", c), "a a, b 2 RELU");
  EXPECT_EQ(render("a  {%- if true -%}  b  {%- endif %}", c), "ab");
  EXPECT_EQ(render("{# note #}\nx"), "x");
}

TEST(render_template, RawBlocksAreLiteral) {
  EXPECT_EQ(render("{% raw %}\n{{ x }} {% if %}\n{% endraw %}\nend"), "{{ x }} {% if %}\nend");
}

TEST(render_template, ReportsSyntaxErrorsWithLine) {
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

TEST(render_template, LenientUndefinedNamesAreFalse) {
  EXPECT_EQ(render("{% if missing %}A{% else %}B{% endif %}{% if loop.index %}C{% endif %}"), "B");
}

TEST(render_template, StrictUndefinedNamesAreErrorsNamingTheTemplate) {
  Context c = string_context({{"name", "relu"}});
  c["cuda"] = Value::of(true);
  auto ok = render_template("{{ name }}\n{% if cuda %}\ncuda\n{% endif %}\n", c, "t", Undefined::strict);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(*ok, "relu\ncuda\n");
  auto typo = render_template("a\n{{ nmae }}", c, "templates/init/build.toml", Undefined::strict);
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.error().message, "templates/init/build.toml:2: undefined variable `nmae`");
  auto flag = render_template("{% if cdua %}\nx\n{% endif %}\n", c, "t", Undefined::strict);
  ASSERT_FALSE(flag.ok());
  EXPECT_EQ(flag.error().message, "t:1: undefined variable `cdua`");
  auto attribute = render_template("{% for i in [1] %}{{ loop.idx }}{% endfor %}", c, "t", Undefined::strict);
  ASSERT_FALSE(attribute.ok());
  EXPECT_EQ(attribute.error().message, "t:1: undefined attribute `idx`");
  // A branch not taken is not evaluated, as in Jinja.
  EXPECT_TRUE(render_template("{% if false %}{{ nmae }}{% endif %}", c, "t", Undefined::strict).ok());
}

TEST(render_template, LiteralJinjaSyntaxThroughRaw) {
  Context c = string_context({{"name", "relu"}});
  // A C++ brace-init and a Python f-string with doubled braces, kept by a raw block.
  EXPECT_EQ(render("{% raw %}int a[1][1] = {{0}};\nf\"{{x}}\"{% endraw %} {{ name }}", c),
            "int a[1][1] = {{0}};\nf\"{{x}}\" relu");
  // Single braces (CMake's ${VAR}, Python dicts, C++ blocks) need nothing.
  EXPECT_EQ(render("${KB_DIR} {\"a\": {1}} {{ name }}", c), "${KB_DIR} {\"a\": {1}} relu");
}

TEST(render_template, ValuesAreNotRenderedAgain) {
  EXPECT_EQ(render("{{ a }}", string_context({{"a", "{{ b }} {% if %}"}})), "{{ b }} {% if %}");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::codegen::templating
