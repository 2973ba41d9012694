// Acceptance rules of the loader (see acceptance.h).
#include "variant/acceptance.h"


namespace kb::variant {

using config::Backend;

namespace {

std::optional<bool> variant_cxx11(AbiTag tag) {
  if (tag == AbiTag::cxx11) return true;
  if (tag == AbiTag::cxx98) return false;
  return std::nullopt;
}

std::optional<std::string> framework_reason(const VariantName& v, const SystemDescription& s) {
  const MajorMinor version = v.framework_version.value_or(MajorMinor{});
  switch (v.kind) {
    case VariantKind::torch_arch:
      if (!s.torch_version || *s.torch_version != version) {
        return "Torch version (" + version.to_string() + ") does not match environment Torch version (" +
               python_repr(s.torch_version) + ")";
      }
      if (v.abi_tag != AbiTag::none && variant_cxx11(v.abi_tag) != s.cxx11) {
        return "Torch CXX11 ABI (" + python_repr(variant_cxx11(v.abi_tag)) +
               ") does not match environment Torch CXX11 ABI (" + python_repr(s.cxx11) + ")";
      }
      return std::nullopt;
    case VariantKind::stable_abi:
      if (!s.torch_version || version > *s.torch_version) {
        return "Torch stable ABI version (" + version.to_string() + ") is too new for environment Torch version (" +
               python_repr(s.torch_version) + ")";
      }
      return std::nullopt;
    case VariantKind::tvm_ffi:
      if (!s.tvm_ffi_version || *s.tvm_ffi_version != version) {
        return "tvm-ffi version (" + version.to_string() + ") does not match environment tvm-ffi version (" +
               python_repr(s.tvm_ffi_version) + ")";
      }
      return std::nullopt;
    case VariantKind::noarch: return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> backend_reason(const VariantName& v, const SystemDescription& s) {
  if (v.compute.backend == Backend::cuda && s.backend == Backend::cuda) {
    const MajorMinor variant_version = v.compute.version.value_or(MajorMinor{});
    bool compatible = s.backend_version && variant_version.major == s.backend_version->major &&
                      variant_version.minor <= s.backend_version->minor;
    if (!compatible) {
      return "CUDA version (" + variant_version.to_string() + ") is not compatible with system CUDA version (" +
             python_repr(s.backend_version) + ")";
    }
    return std::nullopt;
  }
  if (v.compute.to_string() != s.compute_string()) {
    return "backend (" + v.compute.to_string() + ") does not match selected backend (" + s.compute_string() + ")";
  }
  return std::nullopt;
}

std::optional<std::string> metal_reason(const VariantName& v, const SystemDescription& s) {
  if (v.compute.backend != Backend::metal) return std::nullopt;
  std::optional<MajorMinor> macos;
  if (s.macos_version) macos = MajorMinor::parse_prefix(*s.macos_version);
  if (!macos || *macos < MajorMinor{26, 0}) {
    return "Metal kernels require macOS 26.0 or later, system macOS version is " +
           (s.macos_version && !s.macos_version->empty() ? *s.macos_version : std::string("None"));
  }
  return std::nullopt;
}

}  // namespace

std::string SystemDescription::compute_string() const {
  Compute compute{backend, std::nullopt};
  if (backend == Backend::cuda || backend == Backend::rocm || backend == Backend::xpu || backend == Backend::cann) {
    if (!backend_version) return std::string(config::to_string(backend));
    compute.version = backend_version;
  }
  return compute.to_string();
}

std::string SystemDescription::noarch_name() const { return std::string(config::noarch_name(backend)); }

std::optional<std::string> rejection_reason(const VariantName& v, const SystemDescription& s) {
  if (!v.is_arch()) {
    if (v.noarch_backend == s.noarch_name() || v.is_universal()) return std::nullopt;
    return "backend (" + v.noarch_backend + ") does not match system backend (" + s.noarch_name() +
           ") and is not universal";
  }
  if (s.free_threaded) return std::string("arch kernel not supported on free-threaded Python <3.15");
  if (v.cpu != s.cpu) return "CPU (" + v.cpu + ") does not match system CPU (" + s.cpu + ")";
  if (v.os != s.os) return "OS (" + v.os + ") does not match system OS (" + s.os + ")";
  if (auto reason = framework_reason(v, s)) return reason;
  if (auto reason = backend_reason(v, s)) return reason;
  return metal_reason(v, s);
}

}  // namespace kb::variant
