// The pinned header-archive table (see header_archives.h).
#include "builder/header_archives.h"

#include <nlohmann/json.hpp>

#include "util/embedded.h"
#include "util/fs.h"
#include "util/prelude.h"

namespace kb::builder::data {
const std::vector<kb::util::EmbeddedFile>& embedded_files();
}

namespace kb::builder {

using nlohmann::json;

namespace {

Error table_error(const std::string& origin, const std::string& what) {
  return Error(ErrorKind::config, "Invalid header archive table " + origin).with_cause(what);
}

bool is_sha256_hex(const std::string& text) {
  return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

Result<HeaderArchiveEntry> parse_entry(const std::string& name, const json& value, const std::string& origin) {
  if (!value.is_object()) return table_error(origin, "`" + name + "` is not an object");
  HeaderArchiveEntry entry;
  if (value.contains("unavailable")) {
    if (!value["unavailable"].is_string()) return table_error(origin, "`" + name + ".unavailable` is not a string");
    entry.unavailable = value["unavailable"].get<std::string>();
    return entry;
  }
  HeaderArchive archive;
  for (const char* key : {"url", "sha256", "format", "include_dir", "release"}) {
    if (!value.contains(key) || !value[key].is_string()) {
      return table_error(origin, "`" + name + "." + key + "` is missing or not a string");
    }
  }
  if (!value.contains("size") || !value["size"].is_number_unsigned()) {
    return table_error(origin, "`" + name + ".size` is missing or not a byte count");
  }
  archive.url = value["url"].get<std::string>();
  archive.sha256 = value["sha256"].get<std::string>();
  archive.size = value["size"].get<std::uint64_t>();
  archive.include_dir = value["include_dir"].get<std::string>();
  archive.release = value["release"].get<std::string>();
  if (value["format"].get<std::string>() != "zip") {
    return table_error(origin, "`" + name + ".format` must be `zip` (the only archive format the builder unpacks)");
  }
  if (!is_sha256_hex(archive.sha256)) return table_error(origin, "`" + name + ".sha256` is not 64 lower-case hex digits");
  if (archive.url.rfind("https://", 0) != 0 && archive.url.rfind("http://", 0) != 0) {
    return table_error(origin, "`" + name + ".url` is not an http(s) URL");
  }
  while (!archive.include_dir.empty() && archive.include_dir.back() == '/') archive.include_dir.pop_back();
  entry.archive = std::move(archive);
  return entry;
}

}  // namespace

const HeaderArchiveEntry* HeaderArchiveTable::find(const std::string& dependency) const {
  auto it = entries.find(dependency);
  return it == entries.end() ? nullptr : &it->second;
}

Result<HeaderArchiveTable> parse_header_archive_table(std::string_view text, const std::string& origin) {
  json document = json::parse(text, nullptr, false);
  if (document.is_discarded() || !document.is_object()) return table_error(origin, "not a JSON object");
  if (!document.contains("format_version") || document["format_version"] != 1) {
    return table_error(origin, "`format_version` must be 1");
  }
  if (!document.contains("dependencies") || !document["dependencies"].is_object()) {
    return table_error(origin, "`dependencies` is missing or not an object");
  }
  HeaderArchiveTable table;
  table.origin = origin;
  for (const auto& [name, value] : document["dependencies"].items()) {
    auto entry = parse_entry(name, value, origin);
    if (!entry) return std::move(entry).error();
    table.entries.emplace(name, std::move(*entry));
  }
  return table;
}

Result<HeaderArchiveTable> load_header_archive_table(const std::string& override_file) {
  if (!override_file.empty()) {
    auto text = util::read_file(override_file);
    if (!text) {
      return Error(ErrorKind::io, "Cannot read the header archive table `" + override_file + "`")
          .with_cause(text.error().message)
          .with_hint("KERNEL_BUILDER_HEADER_ARCHIVES names it; unset it to use the built-in table");
    }
    return parse_header_archive_table(*text, "`" + override_file + "` (KERNEL_BUILDER_HEADER_ARCHIVES)");
  }
  if (auto table = util::find_embedded(data::embedded_files(), "header-archives.json")) {
    return parse_header_archive_table(*table, "built-in");
  }
  return Error("internal error: header-archives.json is not embedded");
}

}  // namespace kb::builder
