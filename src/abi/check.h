// The ABI check of built variants (docs/abi-check.md): manylinux symbol versions (ELF), the macOS
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
  bool libraries = true;                      // also check DT_NEEDED and RPATH/RUNPATH (ELF)
  std::string macos = "15.0";
  std::string python_abi = "3.9";
  std::optional<std::string> torch_stable_abi;  // e.g. "2.11"
};

enum class ViolationKind {
  manylinux,        // symbol version newer than the policy allows
  library,          // DT_NEEDED library that neither the policy nor the framework runtime provides
  run_path,         // RPATH/RUNPATH entry pointing into the build machine
  macos_missing,
  macos_newer,
  python_newer,
  python_not_abi3,
  torch_unstable
};

struct Violation {
  ViolationKind kind;
  std::string symbol;  // symbol name; the library (library); the path (run_path); the found macOS version (macos_newer)
  std::string detail;  // the version requirement ("GLIBC_2.33", manylinux); "RPATH"/"RUNPATH" (run_path);
                       // Python/Torch version added
  std::string library = {};  // manylinux: the DT_NEEDED library whose version it binds to ("libc.so.6")
};

struct FileReport {
  std::filesystem::path path;
  std::string format_name;
  bool skipped = false;  // not ELF/Mach-O: a warning, not a failure (docs/abi-check.md QUIRK)
  std::vector<Violation> violations;
  // ELF with manylinux violations: the oldest policy whose symbol versions the file meets
  // (empty when none does, e.g. GLIBC_PRIVATE).
  std::optional<std::string> oldest_policy;
  bool ok() const { return violations.empty(); }
};

// Policy names known to this build, oldest first (manylinux_2_5 ... manylinux_2_39).
std::vector<std::string> manylinux_policies();
// The policy's canonical name for a name or alias ("manylinux2014" -> "manylinux_2_17"); an error
// for unknown names.
util::Result<std::string> canonical_policy(const std::string& name);
// The manylinux policy of torch's own Linux wheels for a target torch version ("2.11" ->
// "manylinux_2_28"): the default policy of a build (data: manylinux-policy.json "torch").
std::string default_policy_for_torch(const std::string& torch_major_minor);
// The newest GLIBC version a policy allows on an architecture ("2.28"); empty when none.
util::Result<std::string> policy_glibc_ceiling(const std::string& policy, const std::string& architecture);

// Whether a policy allows a version requirement such as "GLIBCXX_3.4.29" on an architecture.
util::Result<bool> policy_allows(const std::string& policy, const std::string& architecture, const std::string& version);

// One line describing a violation, for reports and build notes, e.g.
// "__libc_single_threaded@GLIBC_2.32 (libc.so.6)".
std::string describe(const Violation& violation);

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

// stderr text for one file (docs/abi-check.md): the "Checking" line, violation sections, and the
// verdict line; `torch_stable_abi` adds the Torch heading.
std::string render_file_report(const FileReport& report, const CheckOptions& options);

}  // namespace kb::abi
