// Checks run on the project source before every build (docs/build-output.md): the package
// layout and the op-registration lint. Violations are values; the caller decides what fails.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "config/model.h"
#include "util/result.h"

namespace kb::builder {

// `torch-ext` or `tvm-ffi-ext`.
std::string extension_dir_name(const config::BuildConfig& config);

// Layout violations, with the spec's texts (`Python module at torch-ext/<m> must contain __init__.py`, ...).
std::vector<std::string> layout_violations(const std::filesystem::path& project, const config::BuildConfig& config);

// `*.py` files of the project (outside build/, dot-directories and __pycache__), relative, sorted.
std::vector<std::string> project_python_files(const std::filesystem::path& project);

// Runs the lint with `python` over the project's Python files; returns violation lines
// (`<file>:<line> <kind> <name>`).
util::Result<std::vector<std::string>> op_registration_violations(const std::filesystem::path& project,
                                                                  const std::filesystem::path& python);

// Both checks; an error listing every violation (lint header text where applicable).
util::Status check_project(const std::filesystem::path& project, const config::BuildConfig& config,
                           const std::filesystem::path& python);

// Content of an embedded helper script of src/builder/scripts/.
std::string build_script(std::string_view name);

}  // namespace kb::builder
