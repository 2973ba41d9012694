// Building one variant (docs/building.md): generate the private CMake project, configure and
// compile with Ninja (incrementally, in a persistent per-variant build directory), stage the
// package into build/.staging-<variant>, check it, write metadata.json with digest and
// provenance, and atomically replace build/<variant>/. A failed build never leaves a
// half-written variant directory.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "builder/compile_times.h"
#include "builder/plan.h"
#include "builder/reporter.h"
#include "codegen/variant_project.h"
#include "config/model.h"
#include "metadata/metadata.h"
#include "util/result.h"

namespace kb::builder {

class ToolchainProbes;

struct BuildSettings {
  std::filesystem::path project;  // absolute kernel directory
  const config::BuildConfig* config = nullptr;
  std::string unique_id;
  metadata::Provenance provenance;
  int cores = 1;              // parallel compile jobs inside the variant (before the memory cap)
  int concurrent_variants = 1;  // variant builds running at the same time
  std::optional<double> memory_budget_gib;  // memory all compile jobs together may use
  int nvcc_threads = 1;         // NVCC_THREADS
  // Release builds (--bundle): a variant that is not within its manylinux policy (symbol
  // versions, libraries, run paths) fails; otherwise that is a note (it loads here, not on older
  // systems).
  bool strict_manylinux = false;
  // The manylinux policy Linux variants target (--manylinux); default: the policy of the target
  // torch's own wheels (abi::default_policy_for_torch).
  std::optional<std::string> manylinux;
  // Link Linux variants against C-library stubs of that policy (portable.h); off: the host glibc.
  bool portable = true;
  bool use_compiler_cache = true;
  // ccache's remote storage URL for every compile (remote_cache.h); needs the compiler cache.
  std::optional<std::string> remote_cache;
  // The shared torch header cache (torch_pch.h): precompiled torch headers for C++ sources.
  bool header_cache = true;
  // Each kernel unit keeps its own symbols (templates/project/variant/kernel_units.cmake).
  bool symbol_isolation = true;
  // nvcc's --split-compile on the CUDA sources (--split-compile auto|off|N).
  codegen::SplitCompile split_compile;
  // No downloads of pinned header archives (--offline; KERNEL_BUILDER_OFFLINE is read too).
  bool offline = false;
  bool import_check = true;
  bool skip_checks = false;
  bool stream_logs = false;
  BuildReporter* reporter = nullptr;
  // When the toolchains are guesses whose probes still run (toolchain.h): a variant settles them
  // before it reports anything or writes build/<variant>, and stops (`toolchain_refuted`) when a
  // guess was wrong; the run then builds again on the probes' results (builder.cpp).
  ToolchainProbes* toolchain_probes = nullptr;
};

enum class VariantResult { built, up_to_date, toolchain_refuted };

struct VariantOutcome {
  VariantResult result = VariantResult::built;
  std::vector<SourceTime> compile_times;  // the sources this build compiled, slowest first
};

// <project>/build
std::filesystem::path output_dir(const BuildSettings& settings);
// <project>/build/.kb/<variant>: generated project, CMake build tree, log and stamp.
std::filesystem::path work_dir(const BuildSettings& settings, const std::string& variant);

util::Result<VariantOutcome> build_variant(const BuildSettings& settings, const PlannedVariant& variant);

}  // namespace kb::builder
