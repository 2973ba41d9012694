// select_variant: SystemInfo → variant::SystemDescription, then the shared resolution; the CPU
// fallback on top, and the texts that explain the outcome.
#include "loader/selection.h"

#include "loader/arch_check.h"
#include "util/strings.h"
#include "variant/resolution.h"

namespace kb::loader {
namespace {

std::optional<variant::MajorMinor> version_of(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return variant::MajorMinor::parse_prefix(text);
}

variant::SystemDescription describe(const SystemInfo& info) {
  variant::SystemDescription d;
  if (auto backend = config::parse_backend(info.backend)) d.backend = *backend;
  d.backend_version = version_of(info.backend_version);
  d.cpu = info.cpu;
  d.os = info.os;
  d.torch_version = version_of(info.torch_version);
  d.cxx11 = info.cxx11;
  d.tvm_ffi_version = version_of(info.tvm_ffi_version);
  if (!info.macos_version.empty()) d.macos_version = info.macos_version;
  d.free_threaded = info.free_threaded;
  return d;
}

Selection resolve(const std::vector<std::string>& names, const SystemInfo& system) {
  auto resolution = variant::resolve_variants(names, describe(system));
  Selection out;
  out.best = resolution.best;
  out.candidates = resolution.accepted;
  out.invalid = resolution.invalid_names;
  for (const auto& d : resolution.decisions) {
    out.decisions.push_back(Decision{d.name, d.accepted(), d.reason.value_or("")});
  }
  return out;
}

// `system` with `backend=<name>` passed explicitly (the version is the detected one's, if any).
SystemInfo with_backend(const SystemInfo& system, const std::string& name) {
  SystemInfo other = system;
  other.backend = name;
  other.backend_version = name == system.detected_backend ? system.detected_backend_version : "";
  if (name == system.backend) other.backend_version = system.backend_version;
  other.backend_explicit = true;
  return other;
}

// How users call the backend's devices: "CUDA", "ROCm", ...
std::string device_name(const std::string& backend) {
  if (backend == "cuda") return "CUDA";
  if (backend == "rocm") return "ROCm";
  if (backend == "xpu") return "XPU";
  if (backend == "cann") return "NPU";
  if (backend == "metal") return "Metal (MPS)";
  if (backend == "neuron") return "Neuron";
  if (backend == "tpu") return "TPU";
  return backend;
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::vector<std::string> quoted;
  for (const auto& name : names) quoted.push_back("`" + name + "`");
  return util::join(quoted, ", ");
}

}  // namespace

std::string compute_string(const SystemInfo& system) { return describe(system).compute_string(); }

std::string Selection::trace() const {
  std::vector<std::string> lines;
  for (const auto& d : decisions) {
    if (!d.accepted) {
      lines.push_back(d.variant + ": " + d.reason);
    } else if (best && *best == d.variant) {
      lines.push_back(d.variant + " compatible, preferred ✅");
    } else {
      lines.push_back(d.variant + " compatible ✅");
    }
  }
  return util::join(lines, "\n");
}

Selection select_variant(const std::vector<std::string>& names, const SystemInfo& system) {
  Selection primary = resolve(names, system);
  if (primary.best || system.backend_explicit || system.device_available || system.backend == "cpu") {
    return primary;
  }
  Selection cpu = resolve(names, with_backend(system, "cpu"));
  if (!cpu.best) return primary;
  cpu.fallback_from = Selection::Fallback{system.backend, compute_string(system)};
  return cpu;
}

std::string fallback_warning(const std::string& kernel, const Selection& selection) {
  if (!selection.fallback_from || !selection.best) return "";
  const std::string& backend = selection.fallback_from->backend;
  const std::string& compute = selection.fallback_from->compute;
  return "Kernel `" + kernel + "` has no variant for this system's `" + backend + "` backend (" + compute +
         ") and no " + device_name(backend) + " device is available, so its CPU variant `" + *selection.best +
         "` is used instead. Pass `backend=\"cpu\"` to choose the CPU variant explicitly, or `backend=\"" +
         backend + "\"` to require a " + device_name(backend) + " variant.";
}

util::Error no_variant_error(const VariantSource& source, const std::vector<std::string>& names,
                             const Selection& selection, const SystemInfo& system) {
  if (!selection.best && !selection.arch_skipped.empty()) return arch_error(source.where, selection, system);
  std::string trace = selection.decisions.empty() ? "(no variant directories)" : selection.trace();
  util::Error error(util::ErrorKind::not_found,
                    "Cannot find a build variant for this system in " + source.where + ":\n\n" + trace);
  // Another backend this system accepts (docs/loader.md) that would load something.
  const std::string detected = system.detected_backend.empty() ? system.backend : system.detected_backend;
  for (const std::string& other : {std::string("cpu"), detected}) {
    if (other == system.backend) continue;
    auto alternative = resolve(names, with_backend(system, other));
    if (alternative.best) {
      error.hints.push_back("pass `backend=\"" + other + "\"` to load the " + other + " variant `" +
                                         *alternative.best + "`");
    }
  }
  std::string wanted = "a `" + compute_string(system) + "` variant";
  if (!system.torch_version.empty()) wanted += " for Torch " + system.torch_version;
  wanted += " on " + system.cpu + "-" + system.os;
  error.hints.push_back(
      source.local ? "this system needs " + wanted + ": build one with `kernel-builder build`"
                   : "this system needs " + wanted + ": build one with `kernel-builder build` and upload it with "
                     "`kernel-builder upload`");
  if (!selection.invalid.empty()) {
    error.hints.push_back("not variant names, ignored: " + quoted_list(selection.invalid));
  }
  return error;
}

}  // namespace kb::loader
