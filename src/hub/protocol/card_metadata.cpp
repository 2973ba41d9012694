// Card metadata validation (see card_metadata.h).
#include "hub/protocol/card_metadata.h"

#include <algorithm>
#include <set>

#include <yaml-cpp/yaml.h>

namespace kb::hub::protocol {

namespace {

constexpr const char* kMissingMetadata =
    "Empty or missing yaml metadata in repo card: add a block between `---` lines at the top of README.md";

// The types of the common metadata fields; other keys are free-form.
enum class FieldKind { string, string_or_list, list, bool_or_mapping };

struct FieldRule {
  const char* name;
  FieldKind kind;
};

constexpr FieldRule kFieldRules[] = {
    {"license", FieldKind::string_or_list},    {"language", FieldKind::string_or_list},
    {"tags", FieldKind::string_or_list},       {"datasets", FieldKind::string_or_list},
    {"metrics", FieldKind::string_or_list},    {"base_model", FieldKind::string_or_list},
    {"pipeline_tag", FieldKind::string},       {"library_name", FieldKind::string},
    {"license_name", FieldKind::string},       {"license_link", FieldKind::string},
    {"thumbnail", FieldKind::string},          {"new_version", FieldKind::string},
    {"model-index", FieldKind::list},          {"widget", FieldKind::list},
    {"inference", FieldKind::bool_or_mapping},
};

bool is_string(const YAML::Node& node) { return node.IsScalar(); }

bool is_bool(const YAML::Node& node) {
  if (!node.IsScalar()) return false;
  bool value = false;
  return YAML::convert<bool>::decode(node, value);
}

std::string check_field(const FieldRule& rule, const YAML::Node& value) {
  std::string name = std::string("\"") + rule.name + "\"";
  switch (rule.kind) {
    case FieldKind::string:
      return is_string(value) ? "" : name + " must be a string";
    case FieldKind::string_or_list:
      if (is_string(value)) return "";
      if (!value.IsSequence()) return name + " must be a string or a list of strings";
      for (size_t i = 0; i < value.size(); ++i) {
        if (!is_string(value[i])) return name + "[" + std::to_string(i) + "] must be a string";
      }
      return "";
    case FieldKind::list:
      return value.IsSequence() ? "" : name + " must be a list";
    case FieldKind::bool_or_mapping:
      return is_bool(value) || value.IsMap() ? "" : name + " must be a boolean or a mapping";
  }
  return "";
}

// The YAML between the opening `---` line (after optional leading whitespace) and the next
// line that is exactly `---`; `first_line` is the card line it starts on (0-based). false: no
// block. `closed` is false when the opening line has no closing one.
bool front_matter(std::string_view card, std::string& yaml, int& first_line, bool& closed) {
  size_t start = card.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos || card.substr(start, 3) != "---") return false;
  size_t eol = card.find('\n', start);
  if (eol == std::string_view::npos) return false;
  std::string_view opening = card.substr(start + 3, eol - start - 3);
  if (opening.find_first_not_of(" \t\r") != std::string_view::npos) return false;
  first_line = static_cast<int>(std::count(card.begin(), card.begin() + static_cast<long>(eol) + 1, '\n'));
  size_t line = eol + 1;
  while (line <= card.size()) {
    size_t end = card.find('\n', line);
    std::string_view text = card.substr(line, end == std::string_view::npos ? std::string_view::npos : end - line);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (text == "---") {
      yaml = std::string(card.substr(eol + 1, line - eol - 1));
      closed = true;
      return true;
    }
    if (end == std::string_view::npos) break;
    line = end + 1;
  }
  closed = false;
  return true;
}

}  // namespace

CardMetadataReport validate_card_metadata(std::string_view card) {
  CardMetadataReport report;
  std::string yaml;
  int first_line = 0;
  bool closed = false;
  if (!front_matter(card, yaml, first_line, closed)) {
    report.warnings.push_back(kMissingMetadata);
    return report;
  }
  if (!closed) {
    report.errors.push_back("The metadata block opened by `---` on line " + std::to_string(first_line) +
                            " is never closed by a `---` line");
    return report;
  }
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    report.errors.push_back("Invalid YAML at line " + std::to_string(first_line + e.mark.line + 1) + ", column " +
                            std::to_string(e.mark.column + 1) + ": " + e.msg);
    return report;
  }
  if (root.IsNull()) {
    report.warnings.push_back(kMissingMetadata);
    return report;
  }
  if (!root.IsMap()) {
    report.errors.push_back("The metadata must be a YAML mapping (`key: value` lines)");
    return report;
  }
  std::set<std::string> seen;
  for (const auto& item : root) {
    if (!item.first.IsScalar()) {
      report.errors.push_back("Metadata keys must be strings");
      continue;
    }
    std::string key = item.first.Scalar();
    if (!seen.insert(key).second) {
      report.errors.push_back("Duplicated metadata key \"" + key + "\" at line " +
                              std::to_string(first_line + item.first.Mark().line + 1));
      continue;
    }
    for (const auto& rule : kFieldRules) {
      if (key != rule.name || item.second.IsNull()) continue;
      if (std::string problem = check_field(rule, item.second); !problem.empty()) report.errors.push_back(problem);
    }
  }
  return report;
}

}  // namespace kb::hub::protocol
