// Choosing a variant among build/ directory names for the running system: a thin layer over
// src/variant's acceptance/ranking that adds the loader's invalid-name handling and renders the
// decision trace used in error messages and `kernels variants --explain`.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kb::loader {

// The running system as the Python layer inspects it (variants.md §6), plus the selected backend.
struct SystemInfo {
  std::string backend = "cpu";         // selected backend name: cuda, rocm, cpu, metal, xpu, cann, ...
  std::string backend_version;         // "12.8", "7.1", "2025.3", "8.0"; empty when none
  std::string cpu = "x86_64";
  std::string os = "linux";
  std::string torch_version;           // "2.11"; empty without Torch
  std::optional<bool> cxx11;
  std::string tvm_ffi_version;         // empty when not importable
  std::string macos_version;           // empty when unknown / not macOS
  bool free_threaded = false;
};

struct Decision {
  std::string variant;
  bool accepted = false;
  std::string reason;  // empty when accepted
};

struct Selection {
  std::vector<Decision> decisions;     // sorted, every parsable input once
  std::optional<std::string> best;
  std::vector<std::string> invalid;    // names that did not parse
  std::string trace() const;           // variants.md §9, one line per decision
};

Selection select_variant(const std::vector<std::string>& names, const SystemInfo& system);

}  // namespace kb::loader
