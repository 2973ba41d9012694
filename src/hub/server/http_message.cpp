// The Hub server's request and response types (http_message.h).
#include "hub/server/http_message.h"

#include <charconv>
#include <strings.h>

namespace kb::hub::server {

namespace {

int query_hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string form_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && query_hex_digit(text[i + 1]) >= 0 && query_hex_digit(text[i + 2]) >= 0) {
      out += static_cast<char>(query_hex_digit(text[i + 1]) * 16 + query_hex_digit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string_view trim_spaces(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool parse_byte_count(std::string_view text, int64_t& value) {
  if (text.empty() || text.size() > 18) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() && value >= 0;
}

}  // namespace

bool CaseInsensitiveLess::operator()(const std::string& a, const std::string& b) const {
  return ::strcasecmp(a.c_str(), b.c_str()) < 0;
}

std::string Request::get_header_value(const std::string& key, size_t index) const {
  auto [begin, end] = headers.equal_range(key);
  for (auto it = begin; it != end; ++it, --index) {
    if (index == 0) return it->second;
  }
  return "";
}

std::string Request::get_param_value(const std::string& key, size_t index) const {
  auto [begin, end] = params.equal_range(key);
  for (auto it = begin; it != end; ++it, --index) {
    if (index == 0) return it->second;
  }
  return "";
}

bool Request::is_multipart_form_data() const {
  std::string type = get_header_value("Content-Type");
  return ::strncasecmp(type.c_str(), "multipart/form-data", 19) == 0;
}

std::string Response::get_header_value(const std::string& key) const {
  auto found = headers.find(key);
  return found == headers.end() ? "" : found->second;
}

void Response::set_header(const std::string& key, const std::string& value) {
  // A value with a line break would split the header: dropped (no route sends one on purpose).
  if (value.find_first_of("\r\n") != std::string::npos || key.find_first_of("\r\n:") != std::string::npos) return;
  headers.erase(key);
  headers.emplace(key, value);
}

void Response::set_content(std::string content, const std::string& content_type) {
  body = std::move(content);
  content_provider = nullptr;
  chunked_provider = nullptr;
  file_bytes = false;
  set_header("Content-Type", content_type);
}

void Response::set_file_content(uint64_t length, const std::string& content_type, ContentProvider provider) {
  body.clear();
  content_length = length;
  content_provider = std::move(provider);
  file_descriptor = -1;
  file_owner.reset();
  chunked_provider = nullptr;
  file_bytes = true;
  set_header("Content-Type", content_type);
}

void Response::set_chunked_content_provider(const std::string& content_type, ChunkedContentProvider provider) {
  body.clear();
  content_provider = nullptr;
  chunked_provider = std::move(provider);
  file_bytes = false;
  set_header("Content-Type", content_type);
}

void parse_query_text(std::string_view query, Params& params) {
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    std::string key = form_decode(pair.substr(0, eq));
    std::string value = eq == std::string_view::npos ? "" : form_decode(pair.substr(eq + 1));
    params.emplace(std::move(key), std::move(value));
  }
}

std::vector<RangeSpec> parse_range_header(std::string_view value, size_t max_specs) {
  value = trim_spaces(value);
  if (value.size() < 6 || ::strncasecmp(value.data(), "bytes=", 6) != 0) return {};
  value.remove_prefix(6);
  std::vector<RangeSpec> specs;
  while (true) {
    size_t comma = value.find(',');
    std::string_view spec = trim_spaces(value.substr(0, comma));
    size_t dash = spec.find('-');
    if (dash == std::string_view::npos || specs.size() == max_specs) return {};
    std::string_view first = trim_spaces(spec.substr(0, dash));
    std::string_view last = trim_spaces(spec.substr(dash + 1));
    int64_t from = -1;
    int64_t to = -1;
    if (first.empty()) {
      if (!parse_byte_count(last, to)) return {};  // "-N": the last N bytes
    } else {
      if (!parse_byte_count(first, from)) return {};
      if (!last.empty() && (!parse_byte_count(last, to) || to < from)) return {};
    }
    specs.emplace_back(from, to);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return specs;
}

}  // namespace kb::hub::server
