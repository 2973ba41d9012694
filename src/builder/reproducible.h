// `build --check-reproducible` (docs/building.md): the project is copied into two different temporary
// directories and built in each with the same unique id and no compiler cache; every built
// variant must come out byte-identical (modules, `_ops.py`, `metadata.json` and so its digest).
// The first difference is named down to the ELF section.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "builder/builder.h"
#include "util/result.h"

namespace kb::builder {

struct VariantComparison {
  std::string variant;
  std::string digest;  // sha256 of build/<variant>/metadata.json of the first build
  // The first difference: "<file>" (or "<file> section <name>"), and what differs.
  std::optional<std::string> difference;
};

struct ReproducibilityReport {
  std::vector<VariantComparison> variants;
  std::filesystem::path kept;  // the two build trees, kept when a variant differs
  bool ok() const;
};

// SOURCE_DATE_EPOCH for the compilers (__DATE__/__TIME__): the environment's, else the time of
// the project's git HEAD commit, else 0. Same sources, same value.
std::string source_date_epoch(const std::filesystem::path& project);

// Compares two built variant directories file by file (sorted relative paths), then by ELF
// section for native files. Empty when identical.
std::optional<std::string> first_difference(const std::filesystem::path& a, const std::filesystem::path& b);

// Builds twice (see above) with `options` (its kernel_dir is the project).
util::Result<ReproducibilityReport> check_reproducible(const BuildOptions& options, BuildReporter& reporter);

}  // namespace kb::builder
