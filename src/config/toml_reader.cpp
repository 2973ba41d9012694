// Strict, located access to toml++ tables (see toml_reader.h).
#include "config/toml_reader.h"

#include "config/git_url.h"
#include "util/strings.h"

namespace kb::config::detail {

Diagnostic DiagnosticSink::make(const toml::source_region& region, std::string message,
                                std::vector<std::string> hints) const {
  Diagnostic diagnostic;
  diagnostic.file = file_;
  // Implicit tables and the root carry no position; point at the start of the file instead so
  // every diagnostic stays located.
  if (region.begin.line == 0) {
    diagnostic.line = 1;
    diagnostic.column = 1;
  } else {
    diagnostic.line = static_cast<int>(region.begin.line);
    diagnostic.column = static_cast<int>(region.begin.column);
    if (region.end.line == region.begin.line && region.end.column > region.begin.column) {
      diagnostic.length = static_cast<int>(region.end.column - region.begin.column);
    }
  }
  diagnostic.message = std::move(message);
  diagnostic.hints = std::move(hints);
  return diagnostic;
}

void DiagnosticSink::error(const toml::source_region& region, std::string message, std::vector<std::string> hints) {
  errors_.push_back(make(region, std::move(message), std::move(hints)));
}

void DiagnosticSink::warning(const toml::source_region& region, std::string message, std::vector<std::string> hints) {
  warnings_.push_back(make(region, std::move(message), std::move(hints)));
}

std::string_view type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "table";
    case toml::node_type::array: return "array";
    case toml::node_type::string: return "string";
    case toml::node_type::integer: return "integer";
    case toml::node_type::floating_point: return "float";
    case toml::node_type::boolean: return "boolean";
    case toml::node_type::date: return "date";
    case toml::node_type::time: return "time";
    case toml::node_type::date_time: return "date-time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

void type_error(const toml::node& node, const std::string& path, std::string_view expected, DiagnosticSink& sink,
                std::vector<std::string> hints) {
  sink.error(node.source(),
             "invalid type for `" + path + "`: expected " + std::string(expected) + ", found " +
                 std::string(type_name(node)),
             std::move(hints));
}

std::optional<std::string> read_string(const toml::node& node, const std::string& path, DiagnosticSink& sink) {
  if (const auto* value = node.as_string()) return value->get();
  type_error(node, path, "string", sink);
  return std::nullopt;
}

std::optional<int64_t> read_non_negative(const toml::node& node, const std::string& path, DiagnosticSink& sink) {
  const auto* value = node.as_integer();
  if (value == nullptr) {
    type_error(node, path, "integer", sink);
    return std::nullopt;
  }
  if (value->get() < 0) {
    sink.error(node.source(), "invalid value for `" + path + "`: expected a non-negative integer, found " +
                                  std::to_string(value->get()));
    return std::nullopt;
  }
  return value->get();
}

std::optional<std::vector<std::string>> read_strings(const toml::node& node, const std::string& path,
                                                     DiagnosticSink& sink) {
  const auto* array = node.as_array();
  if (array == nullptr) {
    type_error(node, path, "array of strings", sink);
    return std::nullopt;
  }
  std::vector<std::string> out;
  bool ok = true;
  for (size_t i = 0; i < array->size(); ++i) {
    auto item = read_string(*array->get(i), path + "[" + std::to_string(i) + "]", sink);
    if (item) {
      out.push_back(std::move(*item));
    } else {
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<Version> read_version(const toml::node& node, const std::string& path, DiagnosticSink& sink) {
  auto text = read_string(node, path, sink);
  if (!text) return std::nullopt;
  auto version = Version::parse(*text);
  if (!version) {
    sink.error(node.source(), "`" + path + "`: " + version.error().message);
    return std::nullopt;
  }
  return std::move(version).value();
}

TableReader::TableReader(const toml::table& table, std::string path, DiagnosticSink& sink)
    : table_(table), path_(std::move(path)), sink_(sink) {}

const toml::node* TableReader::take(std::string_view key) {
  if (known_set_.insert(std::string(key)).second) known_.emplace_back(key);
  return table_.get(key);
}

const toml::node* TableReader::require(std::string_view key) {
  const toml::node* node = take(key);
  if (node == nullptr) {
    sink_.error(table_.source(), "missing required key `" + std::string(key) + "` in " + display_name());
  }
  return node;
}

std::optional<std::string> TableReader::string(std::string_view key, bool required) {
  const toml::node* node = required ? require(key) : take(key);
  return node == nullptr ? std::nullopt : read_string(*node, path_of(key), sink_);
}

std::optional<int64_t> TableReader::non_negative(std::string_view key, bool required) {
  const toml::node* node = required ? require(key) : take(key);
  return node == nullptr ? std::nullopt : read_non_negative(*node, path_of(key), sink_);
}

std::optional<std::vector<std::string>> TableReader::strings(std::string_view key, bool required) {
  const toml::node* node = required ? require(key) : take(key);
  return node == nullptr ? std::nullopt : read_strings(*node, path_of(key), sink_);
}

std::optional<Version> TableReader::version(std::string_view key) {
  const toml::node* node = take(key);
  return node == nullptr ? std::nullopt : read_version(*node, path_of(key), sink_);
}

std::optional<GitUrl> TableReader::git_url(std::string_view key) {
  const toml::node* node = take(key);
  if (node == nullptr) return std::nullopt;
  auto text = read_string(*node, path_of(key), sink_);
  if (!text) return std::nullopt;
  auto url = parse_git_url(*text);
  if (!url) {
    sink_.error(node->source(), "`" + path_of(key) + "`: " + url.error().message);
    return std::nullopt;
  }
  return std::move(url).value();
}

const toml::table* TableReader::table(std::string_view key, bool required) {
  const toml::node* node = required ? require(key) : take(key);
  if (node == nullptr) return nullptr;
  if (const auto* sub = node->as_table()) return sub;
  type_error(*node, path_of(key), "table", sink_);
  return nullptr;
}

void TableReader::finish(const std::map<std::string, std::string>& other_backend_keys) {
  for (const auto& [key, node] : table_) {
    std::string_view name = key.str();
    if (known_set_.count(name) > 0) continue;
    std::vector<std::string> hints;
    if (auto other = other_backend_keys.find(std::string(name)); other != other_backend_keys.end()) {
      hints.push_back(other->second);
    } else if (auto suggestion = util::did_you_mean(name, known_)) {
      hints.push_back("did you mean `" + *suggestion + "`?");
    }
    sink_.error(key.source(), "unknown key `" + std::string(name) + "` in " + display_name(), std::move(hints));
  }
}

std::string TableReader::path_of(std::string_view key) const {
  return path_.empty() ? toml_key(key) : path_ + "." + toml_key(key);
}

std::string TableReader::display_name() const { return path_.empty() ? "the top level" : "[" + path_ + "]"; }

}  // namespace kb::config::detail
