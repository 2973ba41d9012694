// Listed source files that are missing (see source_files.h).
#include "config/source_files.h"

#include <toml++/toml.h>

#include "config/reader.h"
#include "config/toml_reader.h"

namespace kb::config {

namespace fs = std::filesystem;

namespace {

void check_list(const toml::node* list, const fs::path& kernel_dir, detail::DiagnosticSink& sink) {
  const toml::array* entries = list ? list->as_array() : nullptr;
  if (!entries) return;
  for (const toml::node& entry : *entries) {
    const auto* path = entry.as_string();
    if (!path) continue;
    const std::string& relative = path->get();
    if (relative.find_first_of("*?[") != std::string::npos) continue;  // a pattern, not a file
    std::error_code ec;
    if (fs::is_regular_file(kernel_dir / relative, ec)) continue;
    sink.error(entry.source(), "source file `" + relative + "` does not exist",
               {"create it, or remove it from this `src` list"});
  }
}

}  // namespace

std::vector<Diagnostic> missing_source_files(std::string_view text, std::string_view file_name,
                                             const fs::path& kernel_dir) {
  detail::DiagnosticSink sink{std::string(file_name)};
  toml::table root;
  try {
    root = toml::parse(text, file_name);
  } catch (const toml::parse_error&) {
    return {};  // parse_build_toml reports it
  }
  for (const char* framework : {"torch", "tvm-ffi"}) {
    if (const auto* table = root[framework].as_table()) check_list(table->get("src"), kernel_dir, sink);
  }
  if (const auto* kernels = root["kernel"].as_table()) {
    for (const auto& [name, unit] : *kernels) {
      if (const auto* table = unit.as_table()) check_list(table->get("src"), kernel_dir, sink);
    }
  }
  return std::move(sink.errors());
}

util::Status check_source_files(const fs::path& kernel_dir) {
  KB_TRY_ASSIGN(auto text, read_build_toml(kernel_dir));
  auto missing = missing_source_files(text, build_toml_display_path(kernel_dir), kernel_dir);
  if (missing.empty()) return {};
  util::Error error(util::ErrorKind::config, std::to_string(missing.size()) +
                                                 (missing.size() == 1 ? " source file listed in build.toml does not exist"
                                                                      : " source files listed in build.toml do not exist"));
  for (const auto& diagnostic : missing) {
    std::string rendered = render_diagnostic(diagnostic, text, "");
    if (!rendered.empty() && rendered.back() == '\n') rendered.pop_back();
    error.causes.push_back(std::move(rendered));
  }
  return error;
}

}  // namespace kb::config
