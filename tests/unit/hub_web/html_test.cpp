// Escaping and the page frame of kernel-hub's pages (hub/web/html.h).
#include "hub/web/html.h"

#include <gtest/gtest.h>

#include "util/hash.h"

namespace kb::hub::web {
namespace {
namespace KB_UNITY_ID {

TEST(Escape, EveryMarkupCharacterBecomesAnEntity) {
  EXPECT_EQ(escape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
  EXPECT_EQ(escape("plain text, ünïcödé ✓"), "plain text, ünïcödé ✓");
}

TEST(Escape, InvalidUtf8AndControlCharactersBecomeReplacementCharacters) {
  EXPECT_EQ(escape(std::string("a\x00"
                               "b",
                               3)),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(escape("a\x1b[31mb\x7f"), "a\xEF\xBF\xBD[31mb\xEF\xBF\xBD");
  EXPECT_EQ(escape("\xC0\xBC"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong '<'
  EXPECT_EQ(escape("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(escape("\xE2\x9C"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // truncated
  EXPECT_EQ(escape("tab\tand\nnewline"), "tab\tand\nnewline");
}

TEST(UrlEncode, KeepsOnlyUnreservedCharacters) {
  EXPECT_EQ(url_encode("v1"), "v1");
  EXPECT_EQ(url_encode("a b/c?d&e=\"<"), "a%20b%2Fc%3Fd%26e%3D%22%3C");
}

TEST(PageFrame, EscapesTitleAndSearchAndEmbedsMain) {
  std::string page = page_frame("<t>", "\"><script>", "<p>main</p>");
  EXPECT_NE(page.find("<title>&lt;t&gt; · kernel-hub</title>"), std::string::npos);
  EXPECT_NE(page.find("value=\"&quot;&gt;&lt;script&gt;\""), std::string::npos);
  EXPECT_NE(page.find("<main><p>main</p></main>"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
}

TEST(ContentSecurityPolicy, AdmitsExactlyThePageStylesheetByItsHash) {
  std::string page = page_frame("t", "", "");
  auto start = page.find("<style>") + 7;
  std::string stylesheet = page.substr(start, page.find("</style>") - start);
  std::string hash = util::base64_encode(util::hash_bytes(util::HashAlgorithm::sha256, stylesheet));
  const std::string& policy = content_security_policy();
  EXPECT_NE(policy.find("default-src 'none'"), std::string::npos);
  EXPECT_NE(policy.find("style-src 'sha256-" + hash + "'"), std::string::npos);
  EXPECT_EQ(policy.find("script-src"), std::string::npos);  // none: default-src 'none' applies
  EXPECT_EQ(policy.find("unsafe"), std::string::npos);
  EXPECT_NE(policy.find("frame-ancestors 'none'"), std::string::npos);
}

TEST(SizeText, UsesPowersOf1024) {
  EXPECT_EQ(size_text(0), "0 B");
  EXPECT_EQ(size_text(1023), "1023 B");
  EXPECT_EQ(size_text(1536), "1.5 KiB");
  EXPECT_EQ(size_text(uint64_t{3} << 30), "3.0 GiB");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::web
