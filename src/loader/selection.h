// Choosing a variant among build/ directory names for the running system: a thin layer over
// src/variant's acceptance/ranking that adds the loader's invalid-name handling, the CPU fallback
// for a machine without a device of its detected backend, and the texts that explain a choice —
// the decision trace (`kernels variants --explain`), the fallback warning and the "no variant"
// error with its fixes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace kb::loader {

// The running system as the Python layer inspects it (docs/variants.md), plus the selected backend.
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
  // Backend detection's answer (docs/loader.md); empty: the same as `backend`.
  std::string detected_backend;
  std::string detected_backend_version;
  bool backend_explicit = false;       // `backend=` was passed: never fall back
  bool device_available = true;        // a device of the detected backend is visible
  // The device's architecture: a CUDA compute capability ("8.0") or a ROCm gfx name ("gfx90a");
  // empty when unknown or when the caller turned the check off (`check_arch=False`).
  std::string device_arch;
  // The installed `kernels` version (`kernels.__version__`); empty: metadata's `kernels-minver`
  // is not checked.
  std::string kernels_version;
};

struct Decision {
  std::string variant;
  bool accepted = false;
  std::string reason;  // empty when accepted
};

struct Selection {
  std::vector<Decision> decisions;     // sorted, every parsable input once
  std::optional<std::string> best;
  std::vector<std::string> candidates; // the accepted variants, best first (before the arch check)
  std::vector<std::string> invalid;    // names that did not parse
  // Set when the automatically chosen backend had no variant and no device, and `best` is the
  // CPU variant chosen instead: that backend's name (`cuda`) and compute string (`cu130`).
  struct Fallback {
    std::string backend;
    std::string compute;
  };
  std::optional<Fallback> fallback_from;
  // Accepted by name but not built for the device's architecture (loader/arch_check.h), best first.
  struct ArchSkip {
    std::string variant;
    std::vector<std::string> archs;
  };
  std::vector<ArchSkip> arch_skipped;
  std::string trace() const;           // docs/variants.md, one line per decision
};

// The variant directory names found in one place, and the selection made among them.
struct VariantListing {
  std::vector<std::string> names;
  Selection selection;
};

// Resolves `names` for `system`. When nothing fits the automatically chosen backend, its device is
// not available and a CPU variant fits, that CPU variant is chosen (`fallback_from` says so);
// where something fits the chosen backend, the choice is upstream's.
Selection select_variant(const std::vector<std::string>& names, const SystemInfo& system);

// The system's compute string (`cu128`, `rocm71`, `cpu`), as variant names spell it.
std::string compute_string(const SystemInfo& system);

// The warning for a fallback choice (empty when `selection` is not one); `kernel` names the kernel
// as the caller knows it (a repo id or a path).
std::string fallback_warning(const std::string& kernel, const Selection& selection);

// Where variants were looked for, as the "no variant" error names it.
struct VariantSource {
  std::string where;   // "<repo> (revision: <rev>)" or a local path
  bool local = false;  // built here (`kernel-builder build`) rather than fetched from a Hub
};

// `Cannot find a build variant for this system in <where>:` with the trace of every variant and
// why it was rejected, and hints: the `backend=` that would load something, the variant to build
// (and upload), the names that are not variants. Kind not_found (FileNotFoundError). When variants
// fitted by name but none is built for the device's architecture, the arch error instead
// (`arch_error` in loader/arch_check.h).
util::Error no_variant_error(const VariantSource& source, const std::vector<std::string>& names,
                             const Selection& selection, const SystemInfo& system);

}  // namespace kb::loader
