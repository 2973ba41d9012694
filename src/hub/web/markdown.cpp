// CommonMark rendering of cards (see markdown.h).
#include "hub/web/markdown.h"

#include <cmark.h>

#include <algorithm>
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

std::string render_markdown(std::string_view card, int top_heading) {
  std::string_view text = strip_front_matter(card);
  // CMARK_OPT_UNSAFE is not given: raw HTML and dangerous URLs are left out (cmark >= 0.29);
  // invalid UTF-8 becomes U+FFFD.
  const int options = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8;
  std::unique_ptr<cmark_node, decltype(&cmark_node_free)> document(cmark_parse_document(text.data(), text.size(), options),
                                                                   &cmark_node_free);
  if (!document) return {};
  if (top_heading > 1) {
    std::unique_ptr<cmark_iter, decltype(&cmark_iter_free)> iter(cmark_iter_new(document.get()), &cmark_iter_free);
    for (cmark_event_type event; (event = cmark_iter_next(iter.get())) != CMARK_EVENT_DONE;) {
      cmark_node* node = cmark_iter_get_node(iter.get());
      if (event == CMARK_EVENT_ENTER && cmark_node_get_type(node) == CMARK_NODE_HEADING) {
        cmark_node_set_heading_level(node, std::min(6, cmark_node_get_heading_level(node) + top_heading - 1));
      }
    }
  }
  std::unique_ptr<char, decltype(&std::free)> html(cmark_render_html(document.get(), options), &std::free);
  return html ? std::string(html.get()) : std::string();
}

}  // namespace kb::hub::web
