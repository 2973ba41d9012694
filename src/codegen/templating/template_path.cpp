// Substituting `{name}` in template file paths (see template_path.h).
#include "codegen/templating/template_path.h"

namespace kb::codegen::templating {

std::string render_path(std::string_view path, const std::map<std::string, std::string>& values) {
  std::string out;
  size_t pos = 0;
  while (pos < path.size()) {
    size_t open = path.find('{', pos);
    size_t close = open == std::string_view::npos ? open : path.find('}', open);
    if (close == std::string_view::npos) break;
    out.append(path.substr(pos, open - pos));
    auto value = values.find(std::string(path.substr(open + 1, close - open - 1)));
    if (value != values.end()) {
      out += value->second;
      pos = close + 1;
    } else {
      out.push_back('{');
      pos = open + 1;
    }
  }
  out.append(path.substr(pos));
  return out;
}

}  // namespace kb::codegen::templating
