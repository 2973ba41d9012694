// Escaping, the page frame and its Content-Security-Policy (see html.h).
#include "hub/web/html.h"

#include <cstdio>
#include <iterator>

#include "util/hash.h"

namespace kb::hub::web {

namespace {

// The one stylesheet of every page (inline, admitted by its hash). SVG charts use presentation
// attributes, which the policy does not govern, so no style attribute is ever needed. A table
// wider than the page scrolls inside its own box (display: block) instead of widening the page.
constexpr std::string_view kStylesheet = R"css(
:root { color-scheme: light dark; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #ffffff;
  --panel: #f6f8fa; --accent: #0969da; --good: #1a7f37; --bad: #cf222e; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9198a1; --line: #3d444d;
  --bg: #0d1117; --panel: #151b23; --accent: #4493f8; --good: #3fb950; --bad: #f85149; } }
body { margin: 0; font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 1.5em; align-items: center; padding: .6em 1.5em; border-bottom: 1px solid var(--line);
  background: var(--panel); }
header .brand { font-weight: 700; color: var(--fg); text-decoration: none; }
header form { display: flex; gap: .4em; }
input[type=search] { width: 22em; padding: .3em .5em; border: 1px solid var(--line); border-radius: 6px;
  background: var(--bg); color: var(--fg); }
button { padding: .3em .8em; border: 1px solid var(--line); border-radius: 6px; background: var(--panel);
  color: var(--fg); }
main { max-width: 72em; margin: 0 auto; padding: 1em 1.5em 3em; }
a { color: var(--accent); }
h1 { font-size: 1.6em; margin: .4em 0; } h2 { font-size: 1.25em; margin-top: 1.6em;
  border-bottom: 1px solid var(--line); padding-bottom: .2em; } h3 { font-size: 1.05em; }
table { border-collapse: collapse; margin: .6em 0; font-size: .92em; display: block; max-width: 100%;
  overflow-x: auto; }
th, td { border: 1px solid var(--line); padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: var(--panel); }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code, .mono { font-family: ui-monospace, monospace; font-size: .92em; }
.muted { color: var(--muted); }
.refs a, .refs span { margin-right: .6em; }
.refs .current { font-weight: 700; }
.status-verified { color: var(--good); } .status-mismatch, .status-invalid { color: var(--bad); }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 0 1.2em; overflow-x: auto; }
.card pre { background: var(--panel); padding: .6em; overflow-x: auto; }
.card img { max-width: 100%; }
svg.chart { max-width: 100%; height: auto; }
)css";

// Length of the valid UTF-8 sequence at `text[i]`, or 0.
size_t utf8_sequence(std::string_view text, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char c = byte(i);
  size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  // Overlong forms, surrogates and code points beyond U+10FFFF.
  if (length == 2 && c < 0xC2) return 0;
  if (length == 3 && ((c == 0xE0 && byte(i + 1) < 0xA0) || (c == 0xED && byte(i + 1) >= 0xA0))) return 0;
  if (length == 4 && ((c == 0xF0 && byte(i + 1) < 0x90) || c > 0xF4 || (c == 0xF4 && byte(i + 1) >= 0x90))) return 0;
  return length;
}

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t length = utf8_sequence(text, i);
    if (length == 0 || (c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      i += length == 0 ? 1 : length;
      continue;
    }
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.append(text.substr(i, length));
    }
    i += length;
  }
  return out;
}

std::string url_encode(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out += static_cast<char>(c);
    } else {
      char buffer[4];
      std::snprintf(buffer, sizeof buffer, "%%%02X", c);
      out += buffer;
    }
  }
  return out;
}

std::string page_frame(std::string_view title, std::string_view search, std::string_view main_html) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<meta name=\"referrer\" content=\"no-referrer\"><title>";
  out += escape(title);
  out += " · kernel-hub</title><style>";
  out += kStylesheet;
  out +=
      "</style></head><body><header><a class=\"brand\" href=\"/\">kernel-hub</a>"
      "<form action=\"/\" method=\"get\" role=\"search\"><input type=\"search\" name=\"search\" "
      "placeholder=\"Search repositories\" aria-label=\"Search repositories\" value=\"";
  out += escape(search);
  out += "\"><button type=\"submit\">Search</button></form></header><main>";
  out += main_html;
  out += "</main></body></html>\n";
  return out;
}

const std::string& content_security_policy() {
  static const std::string policy = "default-src 'none'; style-src 'sha256-" +
                                    util::base64_encode(util::hash_bytes(util::HashAlgorithm::sha256, kStylesheet)) +
                                    "'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
  return policy;
}

std::string size_text(unsigned long long bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  char buffer[32];
  if (unit == 0) {
    std::snprintf(buffer, sizeof buffer, "%llu B", bytes);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1f %s", value, units[unit]);
  }
  return buffer;
}

}  // namespace kb::hub::web
