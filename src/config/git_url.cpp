// GitUrl parsing and normalisation (see git_url.h).
#include "config/git_url.h"

#include <array>
#include <string>

#include "util/strings.h"

namespace kb::config {

namespace {

constexpr std::array<std::string_view, 7> accepted_schemes = {"https", "http",    "git",     "ssh",
                                                              "git+ssh", "git+https", "git+http"};

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool has_space_or_control(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) <= ' ' || c == '\x7f') return true;
  }
  return false;
}

// Length of a URL scheme at the start of `text` (RFC 3986: ALPHA *( ALPHA / DIGIT / + - . ))
// when it is followed by ':', else 0.
size_t scheme_length(std::string_view text) {
  if (text.empty() || !is_alpha(text[0])) return 0;
  size_t i = 1;
  while (i < text.size() && (is_alpha(text[i]) || is_digit(text[i]) || text[i] == '+' || text[i] == '-' || text[i] == '.')) {
    ++i;
  }
  return i < text.size() && text[i] == ':' ? i : 0;
}

util::Error invalid(std::string_view text) {
  return util::Error(util::ErrorKind::config, "invalid git URL `" + std::string(text) + "`");
}

// `scheme://authority/rest` with a non-empty host; the scheme and host are lower-cased.
util::Result<GitUrl> parse_absolute(std::string_view text, size_t scheme_end) {
  std::string scheme = util::to_lower(text.substr(0, scheme_end));
  bool accepted = false;
  for (auto candidate : accepted_schemes) accepted = accepted || candidate == scheme;
  if (!accepted) {
    return util::Error(util::ErrorKind::config,
                       "unsupported scheme `" + scheme + "` in git URL `" + std::string(text) +
                           "`, expected one of: https, http, git, ssh, git+ssh, git+https, git+http");
  }
  std::string_view rest = text.substr(scheme_end + 1);
  if (!util::starts_with(rest, "//")) return invalid(text);
  rest.remove_prefix(2);
  size_t authority_end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, authority_end);
  std::string_view tail = authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  size_t at = authority.rfind('@');
  std::string_view user_info = at == std::string_view::npos ? std::string_view() : authority.substr(0, at + 1);
  std::string_view host_port = at == std::string_view::npos ? authority : authority.substr(at + 1);
  std::string_view host = host_port;
  if (!host.empty() && host.front() == '[') {
    size_t close = host.find(']');
    if (close == std::string_view::npos) return invalid(text);
    host = host.substr(0, close + 1);
  } else if (size_t colon = host.find(':'); colon != std::string_view::npos) {
    host = host.substr(0, colon);
  }
  if (host.empty()) return invalid(text);
  std::string_view port = host_port.substr(host.size());
  if (!port.empty()) {
    if (port.front() != ':') return invalid(text);
    for (char c : port.substr(1)) {
      if (!is_digit(c)) return invalid(text);
    }
  }
  GitUrl url;
  url.original = std::string(text);
  url.normalized = scheme + "://" + std::string(user_info) + util::to_lower(host) + std::string(port) + std::string(tail);
  return url;
}

}  // namespace

util::Result<GitUrl> parse_git_url(std::string_view text) {
  if (text.empty() || has_space_or_control(text)) return invalid(text);
  if (size_t scheme_end = scheme_length(text); scheme_end > 0) return parse_absolute(text, scheme_end);
  // scp-like: user@host:path, path relative (not starting with '/').
  size_t at = text.find('@');
  if (at == std::string_view::npos || at == 0) return invalid(text);
  std::string_view user = text.substr(0, at);
  if (user.find_first_of("/:") != std::string_view::npos) return invalid(text);
  size_t colon = text.find(':', at + 1);
  if (colon == std::string_view::npos) return invalid(text);
  std::string_view host = text.substr(at + 1, colon - at - 1);
  std::string_view path = text.substr(colon + 1);
  if (host.empty() || host.find_first_of("/@") != std::string_view::npos) return invalid(text);
  if (path.empty() || path.front() == '/') return invalid(text);
  GitUrl url;
  url.original = std::string(text);
  url.normalized = "ssh://" + std::string(user) + "@" + util::to_lower(host) + "/" + std::string(path);
  return url;
}

}  // namespace kb::config
