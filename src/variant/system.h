// The loader's description of the running system (docs/variants.md). Filled by the loader (from
// Python: platform, torch, tvm_ffi); here it is plain data so resolution stays a pure function.
#pragma once

#include <optional>
#include <string>

#include "config/backend.h"
#include "variant/major_minor.h"
#include "variant/variant_name.h"

namespace kb::variant {

struct SystemDescription {
  config::Backend backend = config::Backend::cpu;  // the selected backend
  std::optional<MajorMinor> backend_version;       // CUDA/ROCm/XPU/CANN version of the selected backend
  std::string cpu = "x86_64";                      // normalised (arm64 -> aarch64, AMD64 -> x86_64)
  std::string os = "linux";                        // platform.system().lower()
  std::optional<MajorMinor> torch_version;         // none without Torch
  std::optional<bool> cxx11;                       // Linux only
  std::optional<MajorMinor> tvm_ffi_version;       // none if tvm_ffi is not importable
  std::optional<std::string> macos_version;        // platform.mac_ver() release, Darwin only
  bool free_threaded = false;                      // CPython < 3.15 built with Py_GIL_DISABLED

  // The system's compute string: `cu128`, `rocm70`, `xpu20253`, `metal`, `cpu`, ...
  std::string compute_string() const;
  // Name a matching noarch variant carries: the backend name, `npu` for cann.
  std::string noarch_name() const;
};

}  // namespace kb::variant
