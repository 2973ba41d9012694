// The reference build matrix (docs/variants.md) as data: data/variant-matrix.json (versioned,
// embedded into the binary) parsed into a flat, ordered list of build sets.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/backend.h"
#include "config/version.h"
#include "util/result.h"
#include "variant/major_minor.h"

namespace kb::variant {

// One toolchain combination: Torch version x backend toolkit x system.
struct BuildSet {
  config::Version torch;                   // e.g. 2.14
  config::Backend backend = config::Backend::cpu;
  std::optional<config::Version> toolkit;  // CUDA 12.6, ROCm 7.1, oneAPI 2025.3.2; none for cpu/metal/tpu/...
  std::string cpu;                         // x86_64 / aarch64
  std::string os;                          // linux / darwin / windows
  bool bundle = false;                     // built by `build --bundle`, required for compliance
  std::optional<config::Version> tvm_ffi;  // TVM-FFI version built with this set
  bool noarch_only = false;                // only an environment for noarch variants
  std::string source;                      // where the set comes from when not upstream's versions.nix
                                           // snapshot (a tracker change); empty for versions.nix sets

  std::string system() const { return cpu + "-" + os; }  // "x86_64-linux"
  MajorMinor torch_major_minor() const { return MajorMinor::from(torch); }
  std::optional<MajorMinor> toolkit_major_minor() const;
  // The toolkit as toolkits are named, with at least two components ("13.0", "2025.3.2").
  std::optional<std::string> toolkit_text() const;
};

struct Matrix {
  int format_version = 1;
  std::vector<BuildSet> build_sets;  // file order, each entry expanded over toolkits then systems
};

inline constexpr int matrix_format_version = 1;

// Parses matrix JSON. Errors name the offending entry; an unknown `format_version` is refused
// so an old binary never misreads a newer file.
util::Result<Matrix> parse_matrix(std::string_view json_text);

// The matrix embedded from data/variant-matrix.json (parsed once; a broken file is a build bug,
// reported as an error rather than a crash).
util::Result<Matrix> reference_matrix();

}  // namespace kb::variant
