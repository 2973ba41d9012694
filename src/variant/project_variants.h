// Which variants a project produces (docs/variants.md): the reference matrix filtered for a
// BuildConfig (backends, CUDA and Torch bounds, TVM-FFI availability), stable-ABI "newest Torch
// per (backend, toolkit)" and deduplication, plus the noarch variants. Pure: no toolchain probing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/model.h"
#include "util/result.h"
#include "variant/matrix.h"
#include "variant/variant_name.h"

namespace kb::variant {

// A system as `<cpu>-<os>` parts (normalised spellings).
struct HostSystem {
  std::string cpu;
  std::string os;
  std::string system() const { return cpu + "-" + os; }
};

// The machine this process runs on (uname); errors for CPUs no variant name can carry.
util::Result<HostSystem> this_host();

struct ProjectVariant {
  VariantName name;
  std::string name_text;                 // name.to_string()
  config::Backend backend = config::Backend::cpu;
  std::optional<BuildSet> build_set;     // the set it is built from; none for noarch variants
  bool bundle = false;                   // built by `build --bundle` (noarch variants: always)
  // Hook for the build engine: whether a toolchain on this machine can build it. Unknown here;
  // toolchain detection fills it in.
  std::optional<bool> buildable_here;
};

struct ProjectVariants {
  std::vector<ProjectVariant> variants;
  std::vector<std::string> warnings;  // e.g. tvm-ffi backends without kernel units
};

// Why listed backend `backend` produces no variant at all, or nullopt when it does: in [torch]
// and [tvm-ffi] projects only backends with a [kernel.*] unit are built (a noarch `torch-<B>`
// of a [torch] project would import ops that were never compiled for B); in [torch-noarch]
// projects every listed backend has its variant. The one owner of this rule and its note.
std::optional<std::string> backend_without_variant(const config::BuildConfig& config, config::Backend backend);

// Whether build set `set` applies to `config` (backend listed, CUDA bounds, Torch bounds,
// TVM-FFI availability for [tvm-ffi] projects). Ignores the system.
bool build_set_applies(const BuildSet& set, const config::BuildConfig& config);

// Variants the project produces: arch variants in build-set order (deduplicated by name, each
// built from the set with the newest Torch), then one noarch variant per noarch backend in
// backend order. `host` restricts arch variants to that system; nullopt keeps every system.
util::Result<ProjectVariants> project_variants(const Matrix& matrix, const config::BuildConfig& config,
                                               const std::optional<HostSystem>& host);

// The arch-form names (`list-variants --arch`, keys of devshell/testshell): the Torch (or
// TVM-FFI, for [tvm-ffi] projects) arch name of every applicable build set, also for noarch
// backends, deduplicated, in build-set order.
util::Result<std::vector<ProjectVariant>> arch_form_variants(const Matrix& matrix, const config::BuildConfig& config,
                                                             const std::optional<HostSystem>& host);

}  // namespace kb::variant
