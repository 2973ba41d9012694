// Name rules of the Hub (see names.h). Hand-written: the rules are short, and no Debian
// library implements the Hub's or git's exact sets (libgit2's ref check differs on one-level
// names and HEAD, and it would be a new dependency for thirty lines of character tests).
#include "hub/protocol/names.h"

#include <algorithm>

#include "util/strings.h"

namespace kb::hub::protocol {

namespace {

util::Error invalid(std::string what, std::string_view value, std::string rule) {
  return util::Error(util::ErrorKind::invalid,
                     "Invalid " + std::move(what) + " `" + printable(value) + "`: " + std::move(rule));
}

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

bool is_word(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Strict UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.
bool valid_utf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    auto c = static_cast<unsigned char>(text[i]);
    size_t extra = 0;
    uint32_t code = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      extra = 1;
      code = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      code = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      code = c & 0x07;
    } else {
      return false;
    }
    if (i + extra >= text.size()) return false;
    for (size_t k = 1; k <= extra; ++k) {
      auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    if ((extra == 1 && code < 0x80) || (extra == 2 && code < 0x800) || (extra == 3 && code < 0x10000) ||
        code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
      return false;
    }
    i += extra + 1;
  }
  return true;
}

bool is_hex(std::string_view text, size_t size) {
  return text.size() == size &&
         std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// The rule a repo id part breaks, or empty.
std::string repo_name_rule(std::string_view part) {
  if (part.empty() || part.size() > kMaxRepoNamePart) return "each part must be 1 to 96 characters long";
  for (char c : part) {
    if (!is_word(c) && c != '-' && c != '.') return "only letters, digits, '-', '_' and '.' are allowed";
  }
  if (!is_word(part.front()) || !is_word(part.back())) {
    return "each part must start and end with a letter, a digit or '_'";
  }
  if (part.find("--") != std::string_view::npos || part.find("..") != std::string_view::npos) {
    return "\"--\" and \"..\" are not allowed";
  }
  if (part.size() >= 4 && util::to_lower(std::string(part.substr(part.size() - 4))) == ".git") {
    return "cannot end with \".git\"";
  }
  return "";
}

}  // namespace

std::string printable(std::string_view value) {
  std::string out(value.substr(0, 120));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  if (value.size() > 120) out += "...";
  return out;
}

util::Status check_repo_name(std::string_view part) {
  if (std::string rule = repo_name_rule(part); !rule.empty()) return invalid("repository name", part, rule);
  return {};
}

util::Status check_repo_id(std::string_view repo_id) {
  const char* what = "repository id";
  size_t slash = repo_id.find('/');
  if (slash == std::string_view::npos || repo_id.find('/', slash + 1) != std::string_view::npos) {
    return invalid(what, repo_id, "expected `namespace/name`");
  }
  for (auto part : {repo_id.substr(0, slash), repo_id.substr(slash + 1)}) {
    if (std::string rule = repo_name_rule(part); !rule.empty()) return invalid(what, repo_id, rule);
  }
  return {};
}

util::Status check_ref_name(std::string_view name) {
  const char* what = "branch or tag name";
  if (name.empty()) return invalid(what, name, "must not be empty");
  if (name.size() > kMaxRefName) return invalid(what, name, "must be at most 255 bytes");
  if (name == "@" || name == "HEAD") return invalid(what, name, "reserved by git");
  if (name.front() == '-') return invalid(what, name, "must not start with '-'");
  if (name.rfind("refs/", 0) == 0) return invalid(what, name, "must not start with \"refs/\"");
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (is_control(u) || c == ' ' || c == '~' || c == '^' || c == ':' || c == '?' || c == '*' || c == '[' ||
        c == '\\') {
      return invalid(what, name, "control characters, space and ~ ^ : ? * [ \\ are not allowed");
    }
  }
  if (!valid_utf8(name)) return invalid(what, name, "must be valid UTF-8");
  if (name.find("..") != std::string_view::npos) return invalid(what, name, "\"..\" is not allowed");
  if (name.find("@{") != std::string_view::npos) return invalid(what, name, "\"@{\" is not allowed");
  if (name.front() == '/' || name.back() == '/' || name.find("//") != std::string_view::npos) {
    return invalid(what, name, "empty components (leading, trailing or double '/') are not allowed");
  }
  if (name.back() == '.') return invalid(what, name, "must not end with '.'");
  for (const auto& component : util::split(std::string(name), '/')) {
    if (component.front() == '.') return invalid(what, name, "a component must not start with '.'");
    if (component.size() >= 5 && component.compare(component.size() - 5, 5, ".lock") == 0) {
      return invalid(what, name, "a component must not end with \".lock\"");
    }
  }
  return {};
}

util::Status check_revision(std::string_view revision) {
  if (is_hex(revision, 40)) return {};
  constexpr std::string_view pr = "refs/pr/";
  if (revision.rfind(pr, 0) == 0) {
    std::string_view digits = revision.substr(pr.size());
    bool number = !digits.empty() && digits.size() <= 9 && digits.front() != '0' &&
                  std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!number) return invalid("revision", revision, "a pull request ref is refs/pr/<number>");
    return {};
  }
  constexpr std::string_view heads = "refs/heads/";
  std::string_view name = revision.rfind(heads, 0) == 0 ? revision.substr(heads.size()) : revision;
  if (auto s = check_ref_name(name); !s) return invalid("revision", revision, s.error().message);
  return {};
}

util::Status check_repo_path(std::string_view path) {
  const char* what = "file path";
  if (path.empty()) return invalid(what, path, "must not be empty");
  if (path.size() > kMaxPath) return invalid(what, path, "must be at most 4096 bytes");
  for (char c : path) {
    if (is_control(static_cast<unsigned char>(c))) return invalid(what, path, "control characters are not allowed");
    if (c == '\\') return invalid(what, path, "backslashes are not allowed");
  }
  if (!valid_utf8(path)) return invalid(what, path, "must be valid UTF-8");
  std::string lower = util::to_lower(std::string(path));
  for (const char* encoded : {"%2e", "%2f", "%5c"}) {
    if (lower.find(encoded) != std::string::npos) {
      return invalid(what, path, "percent-encoded '.', '/' or '\\' is not allowed");
    }
  }
  size_t start = 0;
  while (true) {
    size_t end = path.find('/', start);
    std::string_view component = path.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (component.empty()) return invalid(what, path, "empty components (leading, trailing or double '/') are not allowed");
    if (component == "." || component == "..") return invalid(what, path, "'.' and '..' components are not allowed");
    if (component.size() > kMaxPathComponent) return invalid(what, path, "a component must be at most 255 bytes");
    if (util::to_lower(std::string(component)) == ".git") return invalid(what, path, "a \".git\" component is not allowed");
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return {};
}

util::Status check_repo_folder(std::string_view folder) {
  if (folder.empty()) return {};
  return check_repo_path(folder);
}

util::Status check_no_file_folder_clash(std::vector<std::string> paths) {
  std::sort(paths.begin(), paths.end());
  // In byte order, "a" sorts before "a!b" and "a/b"; the clash partner of a path p is the first
  // later path starting with p + '/', which may be separated from p by paths like "a-b".
  for (size_t i = 0; i < paths.size(); ++i) {
    std::string folder = paths[i] + "/";
    auto it = std::lower_bound(paths.begin() + static_cast<long>(i) + 1, paths.end(), folder);
    if (it != paths.end() && it->rfind(folder, 0) == 0) {
      return util::Error(util::ErrorKind::invalid,
                         "Path `" + paths[i] + "` is a file and also a folder of `" + *it + "`");
    }
  }
  return {};
}

std::string version_branch(int64_t version) { return "v" + std::to_string(version); }

std::optional<int> parse_version_branch(std::string_view name) {
  if (name.size() < 2 || name.size() > 10 || name[0] != 'v') return std::nullopt;
  int n = 0;
  for (char c : name.substr(1)) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

}  // namespace kb::hub::protocol
