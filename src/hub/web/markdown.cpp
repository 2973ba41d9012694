// CommonMark rendering of cards (see markdown.h).
#include "hub/web/markdown.h"

#include <cmark.h>

#include <cstdlib>
#include <memory>

namespace kb::hub::web {

std::string_view strip_front_matter(std::string_view card) {
  auto first_line_end = card.find('\n');
  if (first_line_end == std::string_view::npos) return card;
  std::string_view first = card.substr(0, first_line_end);
  if (!first.empty() && first.back() == '\r') first.remove_suffix(1);
  if (first != "---") return card;
  size_t start = first_line_end + 1;
  while (start < card.size()) {
    size_t end = card.find('\n', start);
    std::string_view line = card.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line == "---" || line == "...")
      return end == std::string_view::npos ? std::string_view() : card.substr(end + 1);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return card;  // an unterminated block is text, as the Hub shows it
}

std::string render_markdown(std::string_view card) {
  std::string_view text = strip_front_matter(card);
  // CMARK_OPT_UNSAFE is not given: raw HTML and dangerous URLs are left out (cmark >= 0.29);
  // invalid UTF-8 becomes U+FFFD.
  std::unique_ptr<char, decltype(&std::free)> html(
      cmark_markdown_to_html(text.data(), text.size(), CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8), &std::free);
  return html ? std::string(html.get()) : std::string();
}

}  // namespace kb::hub::web
