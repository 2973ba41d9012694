// build.toml reading: TOML syntax, edition probe, schema walk per edition, legacy fallback and
// the command-facing load_build_config (see reader.h).
#include "config/reader.h"

#include <algorithm>
#include <cstdio>

#include <toml++/toml.h>

#include "config/schema.h"
#include "config/semantic_checks.h"
#include "config/toml_guard.h"
#include "util/fs.h"
#include "util/strings.h"

namespace kb::config {

namespace {

using detail::DiagnosticSink;

void sort_by_position(std::vector<Diagnostic>& diagnostics) {
  std::stable_sort(diagnostics.begin(), diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.line != b.line ? a.line < b.line : a.column < b.column;
  });
}

ParseOutcome finish(DiagnosticSink& sink, const detail::SchemaOutcome* schema, Edition edition) {
  ParseOutcome outcome;
  sort_by_position(sink.errors());
  sort_by_position(sink.warnings());
  outcome.errors = std::move(sink.errors());
  outcome.warnings = std::move(sink.warnings());
  if (outcome.errors.empty() && schema != nullptr && schema->valid) {
    outcome.parsed = ParsedConfig{schema->config, edition, schema->license_missing};
  }
  return outcome;
}

// The cross-section checks of the schema the file was read with, then the outcome.
ParseOutcome checked(const toml::table& root, const detail::SchemaOutcome& schema, Edition edition,
                     DiagnosticSink& sink) {
  detail::check_semantics(schema.config, root, sink, schema.valid);
  return finish(sink, &schema, edition);
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// No `general.edition`: v4, else v3, else an error naming both failures (docs/build-toml.md).
ParseOutcome parse_legacy(const toml::table& root, const std::string& file) {
  // The schema alone picks the edition; the cross-section checks run on the chosen one only.
  DiagnosticSink v4(file);
  detail::SchemaOutcome as_v4 = detail::parse_schema(root, Edition::v4, v4);
  if (as_v4.valid) return checked(root, as_v4, Edition::v4, v4);
  DiagnosticSink v3(file);
  detail::SchemaOutcome as_v3 = detail::parse_schema(root, Edition::v3, v3);
  if (as_v3.valid) return checked(root, as_v3, Edition::v3, v3);

  sort_by_position(v4.errors());
  sort_by_position(v3.errors());
  ParseOutcome outcome;
  outcome.errors = v4.errors();
  Diagnostic& head = outcome.errors.front();
  head.message = "did not match v4 (" + first_line(head.message) + ") or v3 (" +
                 first_line(v3.errors().front().message) + ")";
  // A file that is valid edition 5 except for the missing key deserves the obvious fix: [general]
  // lacks `edition` and that is the edition-5 schema's only error (decided on the document, not
  // on the diagnostic's wording).
  DiagnosticSink v5(file);
  detail::parse_schema(root, Edition::v5, v5);
  const toml::table* general = root["general"].as_table();
  bool only_edition_missing = general != nullptr && !general->contains("edition") && v5.errors().size() == 1;
  if (only_edition_missing) {
    head.hints.push_back("this file is valid edition 5 apart from the missing key: add `edition = 5` to [general]");
  }
  return outcome;
}

}  // namespace

std::string_view legacy_v4_warning() {
  return "\u26a0\ufe0f  build.toml uses the legacy v4 format; upgrading to edition 5 in memory. Run `kernel-builder "
         "update-build` to persist the upgrade.";
}

std::string_view legacy_v3_error() {
  return "build.toml uses an unsupported legacy format; migrate it with `kernel-builder update-build`";
}

ParseOutcome parse_build_toml(std::string_view text, std::string_view file_name) {
  std::string file(file_name);
  DiagnosticSink sink(file);
  if (auto unsafe = detail::find_unsafe_character(text)) {
    Diagnostic diagnostic{file, unsafe->line, unsafe->column, 1, "Cannot parse TOML in " + file + ": " + unsafe->message, {}};
    sink.errors().push_back(std::move(diagnostic));
    return finish(sink, nullptr, Edition::v5);
  }
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& error) {
    sink.error(error.source(), "Cannot parse TOML in " + file + ": " + std::string(error.description()));
    return finish(sink, nullptr, Edition::v5);
  }
  const toml::node* edition = nullptr;
  if (const auto* general = root.get_as<toml::table>("general")) edition = general->get("edition");
  if (edition == nullptr) return parse_legacy(root, file);
  if (const auto* number = edition->as_integer()) {
    if (number->get() != 5) {
      sink.error(edition->source(), "unsupported build edition " + std::to_string(number->get()) +
                                        "; upgrade kernel-builder");
      return finish(sink, nullptr, Edition::v5);
    }
    detail::SchemaOutcome schema = detail::parse_schema(root, Edition::v5, sink);
    return checked(root, schema, Edition::v5, sink);
  }
  std::vector<std::string> hints;
  if (edition->is_string()) hints.emplace_back("write the edition as a number: `edition = 5`");
  sink.error(edition->source(),
             "invalid `general.edition`: expected an integer, found " + std::string(detail::type_name(*edition)),
             std::move(hints));
  return finish(sink, nullptr, Edition::v5);
}

std::string build_toml_display_path(const std::filesystem::path& kernel_dir) {
  return (kernel_dir / "build.toml").lexically_normal().string();
}

util::Result<std::string> read_build_toml(const std::filesystem::path& kernel_dir) {
  std::filesystem::path path = kernel_dir / "build.toml";
  std::string shown = build_toml_display_path(kernel_dir);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return util::Error(util::ErrorKind::io, "Cannot open " + shown + " for reading")
        .with_hint("run `kernel-builder init` to create a project, or pass the kernel directory");
  }
  auto text = util::read_file(path);
  if (!text) return util::Error(util::ErrorKind::io, "Cannot read from " + shown).with_cause(text.error().message);
  return text;
}

util::Result<BuildConfig> load_build_config(const std::filesystem::path& kernel_dir) {
  KB_TRY_ASSIGN(auto text, read_build_toml(kernel_dir));
  std::string shown = build_toml_display_path(kernel_dir);
  ParseOutcome outcome = parse_build_toml(text, shown);
  if (!outcome.parsed) {
    util::Error error(util::ErrorKind::config, "Cannot parse TOML in " + shown);
    for (const auto& diagnostic : outcome.errors) {
      std::string rendered = render_diagnostic(diagnostic, text, "");
      if (!rendered.empty() && rendered.back() == '\n') rendered.pop_back();
      error.causes.push_back(std::move(rendered));
    }
    return error;
  }
  if (outcome.parsed->edition == Edition::v3) return util::Error(util::ErrorKind::config, std::string(legacy_v3_error()));
  if (outcome.parsed->edition == Edition::v4) std::fprintf(stderr, "%s\n", std::string(legacy_v4_warning()).c_str());
  return std::move(outcome.parsed->config);
}

}  // namespace kb::config
