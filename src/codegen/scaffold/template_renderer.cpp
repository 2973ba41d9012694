// Rendering scaffold templates (see template_renderer.h).
#include "codegen/scaffold/template_renderer.h"

#include <vector>

namespace kb::scaffold {

namespace {

constexpr std::string_view raw_open = "{% raw %}";
constexpr std::string_view raw_close = "{% endraw %}";

util::Error template_error(std::string_view name, const std::string& message) {
  return util::Error(util::ErrorKind::generic, "internal error: template `" + std::string(name) + "`: " + message);
}

void skip_newline(std::string_view text, size_t& pos) {
  if (pos < text.size() && text[pos] == '\n') ++pos;
}

}  // namespace

util::Result<std::string> render_template(std::string_view template_name, std::string_view text,
                                          const TemplateContext& context) {
  std::string out;
  // Stack of open blocks: (flag, whether the enclosing output is active).
  std::vector<std::pair<std::string, bool>> blocks;
  bool active = true;
  size_t pos = 0;
  while (pos < text.size()) {
    if (text.compare(pos, raw_open.size(), raw_open) == 0) {
      size_t end = text.find(raw_close, pos + raw_open.size());
      if (end == std::string_view::npos) return template_error(template_name, "unterminated {% raw %} block");
      size_t start = pos + raw_open.size();
      skip_newline(text, start);
      if (active) out.append(text.substr(start, end - start));
      pos = end + raw_close.size();
      skip_newline(text, pos);
      continue;
    }
    if (text.compare(pos, 2, "{{") != 0) {
      if (active) out.push_back(text[pos]);
      ++pos;
      continue;
    }
    size_t close = text.find("}}", pos + 2);
    if (close == std::string_view::npos) return template_error(template_name, "unterminated {{");
    std::string tag(text.substr(pos + 2, close - pos - 2));
    pos = close + 2;
    if (!tag.empty() && tag[0] == '#') {
      blocks.emplace_back(tag.substr(1), active);
      active = active && context.flags.count(tag.substr(1)) > 0;
      skip_newline(text, pos);
    } else if (!tag.empty() && tag[0] == '/') {
      if (blocks.empty() || blocks.back().first != tag.substr(1)) {
        return template_error(template_name, "unbalanced {{" + tag + "}}");
      }
      active = blocks.back().second;
      blocks.pop_back();
      skip_newline(text, pos);
    } else {
      auto it = context.values.find(tag);
      if (it == context.values.end()) return template_error(template_name, "unknown placeholder {{" + tag + "}}");
      if (active) out += it->second;
    }
  }
  if (!blocks.empty()) return template_error(template_name, "unclosed {{#" + blocks.back().first + "}}");
  return out;
}

std::string render_path(std::string_view path, const std::map<std::string, std::string>& values) {
  std::string out;
  size_t pos = 0;
  while (pos < path.size()) {
    if (path[pos] == '{') {
      size_t close = path.find('}', pos);
      if (close != std::string_view::npos) {
        auto it = values.find(std::string(path.substr(pos + 1, close - pos - 1)));
        if (it != values.end()) {
          out += it->second;
          pos = close + 1;
          continue;
        }
      }
    }
    out.push_back(path[pos++]);
  }
  return out;
}

}  // namespace kb::scaffold
