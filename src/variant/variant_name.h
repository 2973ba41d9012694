// Variant names (docs/variants.md): the parsed `VariantName` and its exact rendering. The name
// is a wire format: it is the directory under build/ and the only thing the loader looks at.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "config/backend.h"
#include "variant/major_minor.h"

namespace kb::variant {

enum class VariantKind {
  torch_arch,  // torch212-cxx11-cu126-x86_64-linux, torch212-metal-aarch64-darwin
  stable_abi,  // torch-stable-abi211-cu126-x86_64-linux
  tvm_ffi,     // tvm-ffi01-cu130-aarch64-linux
  noarch,      // torch-cuda, torch-npu, legacy torch-universal
};

std::string_view to_string(VariantKind kind);  // "torch", "stable-abi", "tvm-ffi", "noarch"

// The ABI tag of a Torch arch name. `none` is the legacy tagless form on Linux and the normal
// form on macOS/Windows; `cxx98` is legacy only.
enum class AbiTag { none, cxx11, cxx98 };

// The `<compute>` part: `cu126`, `rocm71`, `xpu20253`, `cann80`, `cpu`, `metal`, `neuron`, `tpu`.
struct Compute {
  config::Backend backend = config::Backend::cpu;
  std::optional<MajorMinor> version;  // set exactly for cuda, rocm, xpu, cann

  std::string to_string() const;
  // Full-match parse (greedy major: `cu130` -> 13.0); nullopt if not a compute string.
  static std::optional<Compute> parse(std::string_view text);
  // Whether `to_string()` parses back to the same version: the parser gives the minor a single
  // digit (`rocm714` reads as 71.4; still the same text, which is what ROCm matching compares).
  bool representable() const { return !version || version->minor < 10; }

  friend bool operator==(const Compute&, const Compute&) = default;
};

struct VariantName {
  VariantKind kind = VariantKind::noarch;
  std::optional<MajorMinor> framework_version;  // Torch / stable-ABI / TVM-FFI version; arch only
  AbiTag abi_tag = AbiTag::none;                // torch_arch only
  Compute compute;                              // arch only
  std::string cpu;                              // arch only, taken as-is
  std::string os;                               // arch only, taken as-is
  std::string noarch_backend;                   // noarch only: "cuda", "npu", "universal", ...

  // Parses a build/ directory name; nullopt for invalid names.
  static std::optional<VariantName> parse(std::string_view text);
  // Renders the name; parse(s)->to_string() == s for every canonical name.
  // It is `framework_string() + "-" + arch_string()`.
  std::string to_string() const;
  // The framework part: `torch212-cxx11`, `torch212`, `torch-stable-abi211`, `tvm-ffi01`, `torch`.
  std::string framework_string() const;
  // The arch part: `cu126-x86_64-linux`, or the backend of a noarch name (`cuda`, `npu`).
  std::string arch_string() const;

  bool is_arch() const { return kind != VariantKind::noarch; }
  bool is_universal() const { return kind == VariantKind::noarch && noarch_backend == "universal"; }

  friend bool operator==(const VariantName&, const VariantName&) = default;
};

}  // namespace kb::variant
