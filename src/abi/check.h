// The ABI check of built variants (abi-check.md): manylinux symbol versions (ELF), the macOS
// minimum version (Mach-O), Python's stable ABI, and — for stable-ABI variants — only stable Torch
// symbols. Violations are values; `render_file_report` prints them in the spec's format.
// The tables (manylinux policy, CPython stable ABI, Torch shim versions) are embedded from
// src/abi/data/ (refreshed by scripts/refresh-abi-data).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "abi/binary.h"
#include "util/result.h"

namespace kb::abi {

struct CheckOptions {
  std::string manylinux = "manylinux_2_28";   // policy name or alias (manylinux1/2010/2014)
  std::string macos = "15.0";
  std::string python_abi = "3.9";
  std::optional<std::string> torch_stable_abi;  // e.g. "2.11"
};

enum class ViolationKind { manylinux, macos_missing, macos_newer, python_newer, python_not_abi3, torch_unstable };

struct Violation {
  ViolationKind kind;
  std::string symbol;  // or the found macOS version (macos_newer)
  std::string detail;  // dependency + version ("GLIBC: 2.33" rendered), Python/Torch version added
};

struct FileReport {
  std::filesystem::path path;
  std::string format_name;
  bool skipped = false;  // not ELF/Mach-O: a warning, not a failure (abi-check.md §1 QUIRK)
  std::vector<Violation> violations;
  bool ok() const { return violations.empty(); }
};

// Versions as the spec compares and prints them: dotted numbers lose trailing zero components
// ("7.0.0" -> "7", "15.0" -> "15"); other text is kept.
std::string normalise_version(const std::string& version);
// Numeric comparison of dotted versions (missing components are 0); -1, 0 or 1.
int compare_versions(const std::string& a, const std::string& b);

// Checks one parsed binary (pure: the tables are embedded). Unknown policy or architecture are
// errors, as in the spec (`Unknown manylinux version: ...`, `Unsupported architecture: ...`).
util::Result<std::vector<Violation>> check_binary(const BinaryInfo& binary, const CheckOptions& options);

// Reads and checks one file.
util::Result<FileReport> check_file(const std::filesystem::path& path, const CheckOptions& options);

// The files checked in a variant directory: every regular file ending in `.so` or `.pyd`, sorted.
std::vector<std::filesystem::path> native_files(const std::filesystem::path& variant_dir);

// stderr text for one file (abi-check.md §6): the "Checking" line, violation sections, and the
// verdict line; `torch_stable_abi` adds the Torch heading.
std::string render_file_report(const FileReport& report, const CheckOptions& options);

}  // namespace kb::abi
