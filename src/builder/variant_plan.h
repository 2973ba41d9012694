// What one variant build does (variant_build.h), decided before anything runs: its ops id and
// paths, which steps run (compile, the early and the staged import check, the ABI check) and
// what is skipped and why, and the input of its up-to-date stamp. Pure.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "builder/plan.h"
#include "builder/variant_build.h"

namespace kb::builder {

enum class ImportCheck {
  run,             // the staged variant is imported by its interpreter
  no_interpreter,  // wanted, but no interpreter for the backend is configured: a note
  off,             // --skip-checks or --no-import-check
};

struct VariantPlan {
  std::string python_name;           // the package's Python name
  std::string ops_id;                // `_<python name>_<backend>_<unique id>`-style module name
  std::filesystem::path work;        // build/.kb/<variant>: generated project, CMake tree, log, stamp
  std::filesystem::path log_path;    // <work>/build.log
  std::filesystem::path stamp_file;  // <work>/stamp
  std::filesystem::path target;      // build/<variant>
  std::filesystem::path staging;     // build/.staging-<variant>
  std::filesystem::path package;     // <project>/<extension dir>/<python name>
  bool compile = false;              // arch variants: generate, configure and compile the module
  bool early_import_check = false;   // torch arch variants import torch while they compile
  ImportCheck import_check = ImportCheck::off;
  std::optional<std::string> import_check_note;  // with ImportCheck::no_interpreter
  bool abi_check = false;                        // check-abi on the staged native files
};

VariantPlan plan_variant(const BuildSettings& settings, const PlannedVariant& variant);

// The start of the variant's up-to-date stamp input: what it is built from (its metadata.json,
// the project's input fingerprint, the checks, the toolchain). compile_arch adds the generated
// project and the CMake configure command.
std::string variant_stamp_input(const BuildSettings& settings, const PlannedVariant& variant, const VariantPlan& plan,
                                const std::string& metadata_json, const std::string& input_fingerprint);

}  // namespace kb::builder
