// Card context: a light reading of the package's Python sources (no interpreter needed:
// `__all__` and class names are found lexically at the top level) plus build.toml values.
#include "codegen/card/card_context.h"

#include <algorithm>
#include <cctype>

#include "util/fs.h"
#include "util/strings.h"

namespace kb::codegen::card {

namespace fs = std::filesystem;
using templating::Context;
using templating::Value;

std::optional<std::vector<std::string>> python_all_list(std::string_view source) {
  size_t at = 0;
  while (at < source.size()) {
    size_t end = source.find('\n', at);
    std::string_view line = source.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    if (line.rfind("__all__", 0) == 0) {
      std::string_view rest = util::trim(line.substr(7));
      if (!rest.empty() && rest[0] == '=' && (rest.size() < 2 || rest[1] != '=')) {
        size_t open = source.find_first_not_of(" \t", at + (line.find('=') + 1));
        if (open == std::string_view::npos || source[open] != '[') return std::nullopt;
        std::vector<std::string> names;
        for (size_t i = open + 1; i < source.size(); ++i) {
          char c = source[i];
          if (c == ']') return names;
          if (c == '#') {
            while (i < source.size() && source[i] != '\n') ++i;
          } else if (c == '"' || c == '\'') {
            size_t close = source.find(c, i + 1);
            if (close == std::string_view::npos) return std::nullopt;
            names.emplace_back(source.substr(i + 1, close - i - 1));
            i = close;
          }
        }
        return std::nullopt;
      }
    }
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  return std::nullopt;
}

std::vector<std::string> python_top_level_classes(std::string_view source) {
  std::vector<std::string> names;
  for (const auto& line : util::split(source, '\n')) {
    if (line.rfind("class ", 0) != 0) continue;
    size_t start = 6;
    while (start < line.size() && line[start] == ' ') ++start;
    size_t end = start;
    while (end < line.size() && (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_')) ++end;
    if (end > start) names.push_back(line.substr(start, end - start));
  }
  return names;
}

util::Result<Context> card_context(const config::BuildConfig& config, const fs::path& kernel_dir) {
  if (!config.general.hub || !config.general.hub->repo_id) {
    return util::Error(util::ErrorKind::config,
                       "Cannot fill card template because `repo-id` is not specified in `[general.hub]`");
  }
  Context context;
  context["repo_id"] = Value::of(*config.general.hub->repo_id);
  context["version"] = Value::of(static_cast<int64_t>(config.general.version));
  context["license"] = Value::of(util::to_lower(config.general.license));
  context["has_benchmark"] = Value::of(fs::is_regular_file(kernel_dir / "benchmarks" / "benchmark.py"));
  context["upstream"] = config.general.upstream ? Value::of(config.general.upstream->normalized) : Value();
  context["source"] = config.general.source ? Value::of(config.general.source->normalized) : Value();

  std::string module = config.general.python_name();
  std::optional<std::vector<std::string>> all;
  fs::path package;
  for (const char* ext_dir : {"torch-ext", "tvm-ffi-ext"}) {
    fs::path init = kernel_dir / ext_dir / module / "__init__.py";
    if (auto text = util::read_file(init)) {
      all = python_all_list(*text);
      package = init.parent_path();
      break;
    }
  }
  std::vector<std::string> functions;
  bool has_layers = false;
  if (all) {
    for (const auto& name : *all) {
      if (name == "layers") {
        has_layers = true;
      } else {
        functions.push_back(name);
      }
    }
  }
  context["functions"] = functions.empty() ? Value() : Value::strings(functions);
  context["layers"] = Value();
  if (has_layers) {
    std::vector<std::string> layers;
    for (const fs::path& file : {package / "layers" / "__init__.py", package / "layers.py"}) {
      if (auto text = util::read_file(file)) {
        layers = python_top_level_classes(*text);
        break;
      }
    }
    if (!layers.empty()) context["layers"] = Value::strings(layers);
  }
  return context;
}

util::Result<std::string> fill_card(const config::BuildConfig& config, const fs::path& kernel_dir) {
  fs::path template_path = kernel_dir / "CARD.md";
  if (!fs::is_regular_file(template_path)) {
    return util::Error(util::ErrorKind::not_found, "CARD.md template not found at `" + template_path.string() + "`");
  }
  KB_TRY_ASSIGN(auto source, util::read_file(template_path));
  KB_TRY_ASSIGN(auto context, card_context(config, kernel_dir));
  return templating::render_template(source, context, template_path.string(), templating::Undefined::lenient);
}

}  // namespace kb::codegen::card
