// Builder side of variant naming (docs/variants.md): from a toolchain's facts (framework
// version, backend toolkit, CPU, OS) to the name, refusing names the loader could not parse back.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "config/backend.h"
#include "util/result.h"
#include "variant/major_minor.h"
#include "variant/variant_name.h"

namespace kb::variant {

// Everything needed to name an arch variant. `kind` is torch_arch, stable_abi or tvm_ffi;
// `framework_version` is the Torch version, the stable-ABI target or the TVM-FFI version.
struct ArchTarget {
  VariantKind kind = VariantKind::torch_arch;
  MajorMinor framework_version;
  config::Backend backend = config::Backend::cpu;
  std::optional<MajorMinor> toolkit;  // required for cuda, rocm, xpu, cann
  std::string cpu;                    // normalised: x86_64 / aarch64
  std::string os;                     // normalised: linux / darwin / windows
};

// The emitted (non-legacy) name: `-cxx11` exactly on Linux Torch arch names. Errors when the
// toolkit minor is >= 10 or the framework major is >= 10 (the loader's parser could not read it).
util::Result<VariantName> arch_variant_name(const ArchTarget& target);

// `torch-<backend>`, with `torch-npu` for cann.
VariantName noarch_variant_name(config::Backend backend);

// Target processor spellings -> `x86_64` / `aarch64`; else `Unsupported architecture: <p>`.
util::Result<std::string> normalize_cpu(std::string_view processor);

struct NormalizedOs {
  std::string os;
  bool unknown = false;  // not Linux/Darwin/Windows: lower-cased, the caller warns
};
NormalizedOs normalize_os(std::string_view system);

// Human name of a backend toolkit for messages: "CUDA 12.10", "ROCm 7.1", "oneAPI 2025.3".
std::string toolkit_display_name(config::Backend backend, const MajorMinor& version);

}  // namespace kb::variant
