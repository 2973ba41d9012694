// Rendering variant names for the builder (see naming.h).
#include "variant/naming.h"

#include "util/strings.h"

namespace kb::variant {

using config::Backend;

namespace {

bool needs_toolkit_version(Backend backend) {
  return backend == Backend::cuda || backend == Backend::rocm || backend == Backend::xpu ||
         backend == Backend::cann;
}

std::string framework_display_name(VariantKind kind) {
  return kind == VariantKind::tvm_ffi ? "TVM-FFI" : "Torch";
}

}  // namespace

std::string toolkit_display_name(Backend backend, const MajorMinor& version) {
  switch (backend) {
    case Backend::cuda: return "CUDA " + version.to_string();
    case Backend::rocm: return "ROCm " + version.to_string();
    case Backend::xpu: return "oneAPI " + version.to_string();
    case Backend::cann: return "CANN " + version.to_string();
    default: return std::string(config::to_string(backend)) + " " + version.to_string();
  }
}

util::Result<VariantName> arch_variant_name(const ArchTarget& target) {
  if (target.kind == VariantKind::noarch) {
    return util::Error("internal error: arch_variant_name called for a noarch target");
  }
  if (target.framework_version.major >= 10) {
    return util::Error(util::ErrorKind::config,
                       "Cannot name a variant for " + framework_display_name(target.kind) + " " +
                           target.framework_version.to_string() +
                           ": variant names give the major version a single digit");
  }
  Compute compute{target.backend, std::nullopt};
  if (needs_toolkit_version(target.backend)) {
    if (!target.toolkit) {
      return util::Error(util::ErrorKind::config, "Cannot name a " + std::string(config::to_string(target.backend)) +
                                                      " variant without a toolkit version");
    }
    compute.version = target.toolkit;
    // A name gives the minor one digit when read back (`rocm714` -> 71.4). Loaders match ROCm,
    // oneAPI and CANN names as text, so those are named as upstream names them (ROCm 7.14:
    // `rocm714`); CUDA versions are compared as numbers, so a CUDA minor of 10+ is refused.
    if (target.backend == Backend::cuda && !compute.representable()) {
      return util::Error(util::ErrorKind::config,
                         "Cannot name a variant for " + toolkit_display_name(target.backend, *target.toolkit) +
                             ": variant names give the minor version a single digit, so `" +
                             compute.to_string() + "` would be read back as a different version")
          .with_hint("build with a toolkit whose minor version is below 10");
    }
  }
  VariantName name;
  name.kind = target.kind;
  name.framework_version = target.framework_version;
  name.compute = compute;
  name.cpu = target.cpu;
  name.os = target.os;
  name.abi_tag = (target.kind == VariantKind::torch_arch && target.os == "linux") ? AbiTag::cxx11 : AbiTag::none;
  return name;
}

VariantName noarch_variant_name(Backend backend) {
  VariantName name;
  name.kind = VariantKind::noarch;
  name.noarch_backend = std::string(config::noarch_name(backend));
  return name;
}

util::Result<std::string> normalize_cpu(std::string_view processor) {
  if (processor == "x86_64" || processor == "amd64" || processor == "AMD64") return std::string("x86_64");
  if (processor == "aarch64" || processor == "arm64" || processor == "ARM64") return std::string("aarch64");
  return util::Error(util::ErrorKind::config, "Unsupported architecture: " + std::string(processor));
}

NormalizedOs normalize_os(std::string_view system) {
  if (system == "Linux") return {"linux", false};
  if (system == "Darwin") return {"darwin", false};
  if (system == "Windows") return {"windows", false};
  std::string lower = util::to_lower(system);
  bool known = lower == "linux" || lower == "darwin" || lower == "windows";
  return {lower, !known};
}

}  // namespace kb::variant
