// Program entry shared by the CLIs: builds the CLI11 tree from the registry, handles --version,
// usage errors (exit 2) and uncaught exceptions (exit 1); its --help ends with util/exit_code.h's table.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "util/result.h"

namespace kb::cli {

struct ProgramInfo {
  std::string name;         // e.g. "kernel-builder"
  std::string description;  // first line of --help
  std::string footer;       // shown after the command list in --help, before the exit-status table
  std::string failure_meaning;  // what exit status 1 means for this program, in the exit-status table
};

// "kernel-builder 0.1.0 (abc1234def...)" with "-dirty" when built from a dirty tree.
std::string version_string(std::string_view program);
std::string builder_version();   // "0.1.0"
std::string builder_commit();    // 40 hex or empty
bool builder_dirty();

// The root CLI11 app of the running program (for `completions`); valid during run_program.
const CLI::App& root_app();

// After CLI11 refused arguments it does not know: "unknown command `biuld` for `kernel-builder`"
// or "unknown option `--varient` for `kernel-builder build`", with the closest name as a hint.
std::optional<util::Error> unknown_argument_error(const CLI::App& root);

int run_program(const ProgramInfo& info, int argc, char** argv);

}  // namespace kb::cli
