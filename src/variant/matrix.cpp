// Parsing the build matrix data file (see matrix.h).
#include "variant/matrix.h"

#include <nlohmann/json.hpp>

#include "util/embedded.h"

namespace kb::variant::data {
const std::vector<kb::util::EmbeddedFile>& embedded_files();
}

namespace kb::variant {

namespace {

using nlohmann::json;

util::Error entry_error(size_t index, const std::string& message) {
  return util::Error(util::ErrorKind::config,
                     "Invalid build matrix entry " + std::to_string(index) + ": " + message);
}

util::Result<config::Version> version_field(const json& entry, const char* key, size_t index) {
  if (!entry.contains(key) || !entry[key].is_string()) return entry_error(index, std::string("`") + key + "` must be a version string");
  auto version = config::Version::parse(entry[key].get<std::string>());
  if (!version) return entry_error(index, version.error().message);
  return version.value();
}

util::Status parse_entry(const json& entry, size_t index, std::vector<BuildSet>& out) {
  if (!entry.is_object()) return entry_error(index, "must be an object");
  BuildSet base;
  KB_TRY_ASSIGN(auto torch, version_field(entry, "torch", index));
  base.torch = torch;
  if (!entry.contains("backend") || !entry["backend"].is_string()) return entry_error(index, "`backend` must be a string");
  auto backend = config::parse_backend(entry["backend"].get<std::string>());
  if (!backend) return entry_error(index, "unknown backend `" + entry["backend"].get<std::string>() + "`");
  base.backend = *backend;
  base.bundle = entry.value("bundle", false);
  base.noarch_only = entry.value("noarch_only", false);
  if (entry.contains("source")) {
    if (!entry["source"].is_string() || entry["source"].get<std::string>().empty()) {
      return entry_error(index, "`source` must be a non-empty string");
    }
    base.source = entry["source"].get<std::string>();
  }
  if (entry.contains("tvm_ffi")) {
    KB_TRY_ASSIGN(auto tvm, version_field(entry, "tvm_ffi", index));
    base.tvm_ffi = tvm;
  }

  std::vector<std::optional<config::Version>> toolkits;
  if (entry.contains("toolkits")) {
    if (!entry["toolkits"].is_array() || entry["toolkits"].empty()) return entry_error(index, "`toolkits` must be a non-empty array");
    for (const auto& t : entry["toolkits"]) {
      if (!t.is_string()) return entry_error(index, "`toolkits` entries must be strings");
      auto version = config::Version::parse(t.get<std::string>());
      if (!version) return entry_error(index, version.error().message);
      toolkits.emplace_back(version.value());
    }
  } else {
    toolkits.emplace_back(std::nullopt);
  }
  if (!entry.contains("systems") || !entry["systems"].is_array()) return entry_error(index, "`systems` must be an array");

  for (const auto& toolkit : toolkits) {
    for (const auto& system : entry["systems"]) {
      std::string text = system.is_string() ? system.get<std::string>() : "";
      auto dash = text.find('-');
      if (dash == std::string::npos || dash == 0 || dash + 1 == text.size()) {
        return entry_error(index, "systems must look like `x86_64-linux`, got `" + text + "`");
      }
      BuildSet set = base;
      set.toolkit = toolkit;
      set.cpu = text.substr(0, dash);
      set.os = text.substr(dash + 1);
      out.push_back(std::move(set));
    }
  }
  return {};
}

}  // namespace

std::optional<MajorMinor> BuildSet::toolkit_major_minor() const {
  if (!toolkit) return std::nullopt;
  return MajorMinor::from(*toolkit);
}

std::optional<std::string> BuildSet::toolkit_text() const {
  if (!toolkit) return std::nullopt;
  std::vector<uint64_t> parts = toolkit->components();
  while (parts.size() < 2) parts.push_back(0);
  std::string text;
  for (uint64_t part : parts) text += (text.empty() ? "" : ".") + std::to_string(part);
  return text;
}

util::Result<Matrix> parse_matrix(std::string_view json_text) {
  json root = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) return util::Error(util::ErrorKind::config, "Build matrix is not a JSON object");
  if (!root.contains("format_version") || !root["format_version"].is_number_integer()) {
    return util::Error(util::ErrorKind::config, "Build matrix has no integer `format_version`");
  }
  Matrix matrix;
  matrix.format_version = root["format_version"].get<int>();
  if (matrix.format_version != matrix_format_version) {
    return util::Error(util::ErrorKind::config, "Unsupported build matrix format_version " +
                                                    std::to_string(matrix.format_version) + " (this kernel-builder reads " +
                                                    std::to_string(matrix_format_version) + ")")
        .with_hint("use a kernel-builder release that matches the matrix file");
  }
  if (!root.contains("build_sets") || !root["build_sets"].is_array()) {
    return util::Error(util::ErrorKind::config, "Build matrix has no `build_sets` array");
  }
  size_t index = 0;
  for (const auto& entry : root["build_sets"]) {
    KB_TRY(parse_entry(entry, index, matrix.build_sets));
    ++index;
  }
  return matrix;
}

util::Result<Matrix> reference_matrix() {
  static const util::Result<Matrix> parsed = [] {
    if (auto matrix = util::find_embedded(data::embedded_files(), "variant-matrix.json")) return parse_matrix(*matrix);
    return util::Result<Matrix>(util::Error("internal error: variant-matrix.json is not embedded"));
  }();
  return parsed;
}

}  // namespace kb::variant
