// Which variants a build produces (cli.md §1.1, variants.md §2): the arch variants the detected
// toolchains can build for the project's backends, all noarch variants, and the bundle variants
// of the reference matrix that no toolchain here can build.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "build/toolchain.h"
#include "config/model.h"
#include "util/result.h"

namespace kb::build {

enum class Flavour { torch_arch, noarch, tvm_ffi };

struct PlannedVariant {
  std::string name;
  config::Backend backend = config::Backend::cpu;
  Flavour flavour = Flavour::torch_arch;
  const Toolchain* toolchain = nullptr;       // arch variants; noarch: an interpreter for the import check
  std::optional<config::Version> stable_abi;  // stable-ABI target of this backend
};

struct MissingVariant {
  std::string name;
  std::string what;  // the missing toolchain, e.g. "Python with torch 2.12 and CUDA 12.6"
};

struct BuildPlan {
  std::vector<PlannedVariant> variants;  // arch variants in toolchain order, then noarch variants
  std::vector<MissingVariant> missing;   // bundle variants of the matrix not buildable here
  std::vector<std::string> notes;        // e.g. backends a toolchain cannot build, and why
};

util::Result<BuildPlan> plan_build(const config::BuildConfig& config, const std::vector<Toolchain>& toolchains);

// The backend whose kernels a toolchain's torch runs (cuda/rocm/xpu/metal/cpu).
config::Backend toolchain_backend(const Toolchain& toolchain);

}  // namespace kb::build
