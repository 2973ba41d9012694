// HTML and SVG text of kernel-hub's pages: escaping (every string from a repository, a card, a
// file name or a benchmark document goes through escape()), the page frame with its inline
// stylesheet, and the Content-Security-Policy that admits exactly that stylesheet and nothing
// else (no script, no external asset). Pure functions.
#pragma once

#include <string>
#include <string_view>

namespace kb::hub::web {

// Text for an element's content or a quoted attribute value (HTML and SVG alike): & < > " '
// become entities; bytes that are not valid UTF-8 and control characters other than tab and
// newline become U+FFFD, so nothing can end the context it is placed in.
std::string escape(std::string_view text);

// A URL query value or path segment, percent-encoded (unreserved characters kept).
std::string url_encode(std::string_view text);

// A whole page: doctype, head (title, the stylesheet), the header with the search box (holding
// `search`), then `main_html` (already HTML).
std::string page_frame(std::string_view title, std::string_view search, std::string_view main_html);

// The Content-Security-Policy of every page: default-src 'none', the stylesheet by its hash,
// images from the server only, forms to the server only, no framing.
const std::string& content_security_policy();

// "1.5 MiB" style sizes (powers of 1024).
std::string size_text(unsigned long long bytes);

}  // namespace kb::hub::web
