// Internal to the config library: checks that span several sections of a schema-valid file
// (docs/build-toml.md): Python dependencies against the registry (errors), and units, sections
// and settings that will be ignored or look wrong (warnings).
#pragma once

#include <toml++/toml.h>

#include "config/model.h"
#include "config/toml_reader.h"

namespace kb::config::detail {

// With `schema_valid` false (the schema walk failed and `config` is partial) only the registry
// names are checked, so that one run still reports them along with the schema errors.
void check_semantics(const BuildConfig& config, const toml::table& root, DiagnosticSink& sink, bool schema_valid);

}  // namespace kb::config::detail
