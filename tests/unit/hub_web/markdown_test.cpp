// Card rendering with libcmark in safe mode (hub/web/markdown.h).
#include "hub/web/markdown.h"

#include <gtest/gtest.h>

namespace kb::hub::web {
namespace {
namespace KB_UNITY_ID {

TEST(RenderMarkdown, RendersCommonMark) {
  EXPECT_EQ(render_markdown("# Title\n\nSome *emphasis* and `code`.\n"),
            "<h1>Title</h1>\n<p>Some <em>emphasis</em> and <code>code</code>.</p>\n");
}

TEST(RenderMarkdown, DropsRawHtml) {
  std::string html = render_markdown("<script>alert(1)</script>\n\ntext <img src=x onerror=alert(1)> more\n");
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("onerror"), std::string::npos);
}

TEST(RenderMarkdown, DropsDangerousUrls) {
  std::string html = render_markdown("[a](javascript:alert(1)) [b](vbscript:x) ![c](data:text/html;base64,AAAA)\n");
  EXPECT_EQ(html.find("javascript:"), std::string::npos);
  EXPECT_EQ(html.find("vbscript:"), std::string::npos);
  EXPECT_EQ(html.find("data:text/html"), std::string::npos);
  EXPECT_NE(render_markdown("[ok](https://example.com/a)\n").find("href=\"https://example.com/a\""), std::string::npos);
}

TEST(RenderMarkdown, EscapesTextAndAttributes) {
  EXPECT_EQ(render_markdown("a < b & \"c\"\n"), "<p>a &lt; b &amp; &quot;c&quot;</p>\n");
  std::string html = render_markdown("[x](https://e.com/\"onmouseover=\"alert(1))\n");
  EXPECT_EQ(html.find("\"onmouseover"), std::string::npos);
}

TEST(RenderMarkdown, ShiftsHeadingsBelowTheGivenLevel) {
  EXPECT_EQ(render_markdown("# A\n## B\n###### F\n", 2), "<h2>A</h2>\n<h3>B</h3>\n<h6>F</h6>\n");
  EXPECT_EQ(render_markdown("# A\n"), "<h1>A</h1>\n");
}

TEST(StripFrontMatter, RemovesTheLeadingYamlBlockOnly) {
  EXPECT_EQ(strip_front_matter("---\nlicense: mit\n---\n# Card\n"), "# Card\n");
  EXPECT_EQ(strip_front_matter("---\r\nlicense: mit\r\n---\r\nbody"), "body");
  EXPECT_EQ(strip_front_matter("# Card\n---\nx\n---\n"), "# Card\n---\nx\n---\n");
  EXPECT_EQ(strip_front_matter("---\nunterminated\n"), "---\nunterminated\n");
  EXPECT_EQ(render_markdown("---\nlicense: mit\n---\nBody\n"), "<p>Body</p>\n");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::web
