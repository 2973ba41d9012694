// Which variants a build produces (docs/cli.md, docs/variants.md): the arch variants the detected
// toolchains can build for the project's backends, all noarch variants, and the bundle variants
// of the reference matrix that no toolchain here can build.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "builder/toolchain.h"
#include "config/model.h"
#include "util/result.h"

namespace kb::builder {

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
  std::string what;  // the missing toolchain, e.g. "Python with torch 2.14 and CUDA 12.6"
};

struct BuildPlan {
  std::vector<PlannedVariant> variants;  // arch variants in toolchain order, then noarch variants
  std::vector<MissingVariant> missing;   // bundle variants of the matrix not buildable here
  std::vector<std::string> notes;        // e.g. backends a toolchain cannot build, and why
};

util::Result<BuildPlan> plan_build(const config::BuildConfig& config, const std::vector<Toolchain>& toolchains);

// The error of a build whose plan has no variant at all: what the project needs (backends with
// kernels, [torch] and [general.cuda] bounds, TVM-FFI), the toolchains found, why each was not
// used (the plan's notes), and what the reference matrix would build it with.
util::Error nothing_to_build(const config::BuildConfig& config, const std::vector<Toolchain>& toolchains,
                             const BuildPlan& plan);

// "`<python>` (torch 2.11.0+cu130, CUDA 13.0)": a toolchain as messages name it.
std::string describe_toolchain(const Toolchain& toolchain);

// The backend whose kernels a toolchain's torch runs (cuda/rocm/xpu/metal/cpu).
config::Backend toolchain_backend(const Toolchain& toolchain);

}  // namespace kb::builder
