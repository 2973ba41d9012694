// Comment extraction and anchoring (see toml_comments.h).
#include "config/toml_comments.h"

#include <map>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "config/toml_text.h"
#include "util/strings.h"

namespace kb::config {

namespace {

// Legacy spellings the writer renames (docs/build-toml.md QUIRK).
std::string canonical_anchor(std::string anchor) {
  if (anchor == "torch-noarch.cuda-capabilities") return "torch-noarch.cuda_capabilities";
  if (anchor == "torch-noarch.rocm-archs") return "torch-noarch.rocm_archs";
  return anchor;
}

struct Anchor {
  std::string name;
  size_t value_end_line = 0;  // last line of a key's value (same as the anchor line if one line)
};

// Anchors by line: header tables and keys, not descending into inline tables or arrays.
void collect(const toml::table& table, const std::string& path, std::map<size_t, Anchor>& anchors) {
  for (const auto& [key, node] : table) {
    std::string name = path.empty() ? toml_key(key.str()) : path + "." + toml_key(key.str());
    const auto* sub = node.as_table();
    if (sub != nullptr && !sub->is_inline()) {
      // Implicit parents ("kernel" of [kernel.relu]) may report their child's header line;
      // assigning before recursing lets the child's anchor win.
      if (sub->source().begin.line > 0) anchors[sub->source().begin.line] = Anchor{canonical_anchor(name), 0};
      collect(*sub, name, anchors);
      continue;
    }
    size_t line = key.source().begin.line;
    if (line == 0) continue;
    anchors[line] = Anchor{canonical_anchor(name), node.source().end.line};
  }
}

// The comment starting on `line` outside any string ("# ..."), or empty.
std::string trailing_comment(std::string_view line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote != 0) {
      if (quote == '"' && c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return std::string(util::trim(line.substr(i)));
    }
  }
  return {};
}

// Drops leading blank lines and keeps at most one trailing blank line (the separation the
// author left between a comment block and its setting).
void trim_blank_edges(std::vector<std::string>& lines) {
  while (lines.size() >= 2 && lines.back().empty() && lines[lines.size() - 2].empty()) lines.pop_back();
  if (lines.size() == 1 && lines.back().empty()) lines.pop_back();
  size_t first = 0;
  while (first < lines.size() && lines[first].empty()) ++first;
  lines.erase(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(first));
}

}  // namespace

TomlComments extract_comments(std::string_view text) {
  TomlComments comments;
  toml::table root;
  try {
    root = toml::parse(text);
  } catch (const toml::parse_error&) {
    return comments;
  }
  std::map<size_t, Anchor> anchors;
  collect(root, "", anchors);

  std::vector<std::string> lines = util::split(text, '\n');
  std::vector<std::string> pending;
  const Anchor* open_value = nullptr;  // a key whose multi-line value is still running
  for (size_t index = 0; index < lines.size(); ++index) {
    size_t number = index + 1;
    std::string_view line = lines[index];
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string_view trimmed = util::trim(line);
    auto anchor = anchors.find(number);
    if (anchor != anchors.end()) {
      trim_blank_edges(pending);
      if (!pending.empty()) {
        auto& target = comments.leading[anchor->second.name];
        target.insert(target.end(), pending.begin(), pending.end());
      }
      pending.clear();
      if (std::string comment = trailing_comment(line); !comment.empty()) {
        comments.trailing[anchor->second.name] = comment;
      }
      open_value = anchor->second.value_end_line > number ? &anchor->second : nullptr;
      continue;
    }
    if (util::starts_with(trimmed, "#")) {
      // Inside a multi-line value the comment belongs to that key: keep it before the key.
      if (open_value != nullptr) {
        comments.leading[open_value->name].push_back(std::string(trimmed));
      } else {
        pending.emplace_back(trimmed);
      }
    } else if (trimmed.empty()) {
      if (!pending.empty()) pending.emplace_back();
    } else if (open_value != nullptr) {
      std::string comment = trailing_comment(line);
      if (comment.empty()) {
        // nothing to keep on this line
      } else if (number == open_value->value_end_line && comments.trailing.count(open_value->name) == 0) {
        comments.trailing[open_value->name] = comment;
      } else {
        comments.leading[open_value->name].push_back(comment);
      }
    }
    if (open_value != nullptr && number >= open_value->value_end_line) open_value = nullptr;
  }
  trim_blank_edges(pending);
  if (!pending.empty() && pending.back().empty()) pending.pop_back();
  comments.final_lines = std::move(pending);
  return comments;
}

}  // namespace kb::config
