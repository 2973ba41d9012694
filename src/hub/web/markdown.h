// Repository cards (README.md / CARD.md) rendered from CommonMark to HTML with libcmark, in its
// safe mode: raw HTML in the card is dropped (replaced by a comment) and links or images with
// javascript:, vbscript:, file: or data: (other than images) URLs lose their URL. A YAML front
// matter block (the Hub's card metadata) is not part of the rendered text.
#pragma once

#include <string>
#include <string_view>

namespace kb::hub::web {

// The card's text without a leading "---" ... "---" front matter block.
std::string_view strip_front_matter(std::string_view card);

// HTML of the card's Markdown (front matter removed); never contains raw HTML from the card. Its
// headings start at level `top_heading` (2: the card's `#` becomes <h2>, under the page's <h1>),
// deeper ones shifted alike, up to <h6>.
std::string render_markdown(std::string_view card, int top_heading = 1);

}  // namespace kb::hub::web
