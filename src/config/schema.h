// Internal to the config library: the schema walk that turns a parsed TOML document into the
// edition-5 model, for edition 5 itself and the legacy v4 / v3 shapes (docs/build-toml.md).
#pragma once

#include <optional>

#include <toml++/toml.h>

#include "config/edition.h"
#include "config/model.h"
#include "config/toml_reader.h"

namespace kb::config::detail {

struct SchemaOutcome {
  BuildConfig config;             // complete when `valid`, else whatever could be read
  bool valid = false;             // the walk recorded no error
  bool license_missing = false;   // v3 only: `general.license` absent
};

SchemaOutcome parse_schema(const toml::table& root, Edition edition, DiagnosticSink& sink);

// Pieces of the walk, one file each.
General parse_general(TableReader& root, Edition edition, bool& license_missing);
std::vector<KernelDependency> parse_kernel_depends(const toml::node& node, const std::string& path,
                                                   DiagnosticSink& sink);
std::optional<Framework> parse_framework(TableReader& root, Edition edition);
std::vector<KernelUnit> parse_kernels(TableReader& root);

}  // namespace kb::config::detail
