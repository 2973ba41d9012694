// Reading build.toml: edition probing, strict edition-5 parsing, legacy v4/v3 upgrade, and
// located diagnostics (file:line:col, source line, caret, "did you mean").
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/diagnostic.h"
#include "config/edition.h"
#include "config/model.h"
#include "util/result.h"

namespace kb::config {

struct ParsedConfig {
  BuildConfig config;  // always the edition-5 model (legacy files are upgraded in memory)
  Edition edition = Edition::v5;
  bool license_missing = false;  // v3 only: no `general.license` (update-build refuses it)
};

// Outcome of parsing one file: either a config or every error found; warnings either way.
struct ParseOutcome {
  std::optional<ParsedConfig> parsed;
  std::vector<Diagnostic> errors;
  std::vector<Diagnostic> warnings;
};

// Parses build.toml text: TOML syntax, the schema of the probed edition (docs/build-toml.md)
// and the cross-section checks (registry names are errors, ignored settings warnings).
// `file_name` is used in diagnostics only. Never throws.
ParseOutcome parse_build_toml(std::string_view text, std::string_view file_name);

// The exact upgrade notice of docs/build-toml.md (no trailing newline).
std::string_view legacy_v4_warning();
// `build.toml uses an unsupported legacy format; migrate it with `kernel-builder update-build``.
std::string_view legacy_v3_error();

// Reads <kernel_dir>/build.toml as text. Errors: `Cannot open <path> for reading`,
// `Cannot read from <path>`.
util::Result<std::string> read_build_toml(const std::filesystem::path& kernel_dir);
// The path diagnostics use for <kernel_dir>/build.toml (lexically normalised).
std::string build_toml_display_path(const std::filesystem::path& kernel_dir);

// For commands that need a configuration (docs/build-toml.md): reads <kernel_dir>/build.toml,
// returns the edition-5 model. A v4 file prints the upgrade warning to stderr; a v3 file is an
// error with the `update-build` hint; parse errors come back as `Cannot parse TOML in <path>`
// caused by every rendered diagnostic.
util::Result<BuildConfig> load_build_config(const std::filesystem::path& kernel_dir);

}  // namespace kb::config
