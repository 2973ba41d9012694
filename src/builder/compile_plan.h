// What compiling one arch variant takes (docs/build-engine.md), decided before anything runs:
// the generated CMake project and its input, the configure command and its stamp, the
// architectures, the header cache, the portable link, the compile jobs and the environment of
// the build tool, and the variant stamp's part of all that. Pure: what it needs from the
// machine or the network comes in as CompileFacts. `compile_arch` (variant_build.cpp) gathers the
// facts, plans, and performs the plan.
//
// A variant's compile identity — the compile commands (hence the objects, the configure stamp,
// the up-to-date stamp and the ccache keys) — depends on the project, the toolchain and the
// build's options, never on how parallel the build runs: `--cores`, `--max-jobs`, NVCC_THREADS
// and the memory budget decide only the Ninja job count and nvcc's `--threads`, which reaches
// nvcc through NVCC_APPEND_FLAGS in the environment of the compile step (nvcc reads it; Ninja,
// CMake and ccache do not).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "builder/jobs.h"
#include "builder/plan.h"
#include "builder/portable.h"
#include "builder/project_includes.h"
#include "builder/variant_build.h"
#include "codegen/generated_files.h"
#include "codegen/variant_project.h"
#include "util/result.h"

namespace kb::builder {

// What planning a compile needs from outside: each is read from the disk, the environment or the
// network by the executor (variant_build.cpp) before planning.
struct CompileFacts {
  std::vector<std::filesystem::path> header_dependency_dirs;  // resolve_header_dependencies
  std::vector<std::string> torch_header_sources;              // torch_header_sources(), header cache on
  std::optional<PortableLink> portable;                       // prepare_portable_link (Linux, portable)
  std::optional<std::filesystem::path> ccache;                // the compiler launcher, if used
  std::string source_date_epoch;                              // reproducible __DATE__/__TIME__
  bool nvcc_threads_in_env = false;                           // NVCC_THREADS set: it decides
  std::optional<std::string> nvcc_append_flags;               // NVCC_APPEND_FLAGS of this process
  // The sources compiled with the ops id, and whether registration.h reads it from the generated
  // kb_ops_id.cpp instead (ops_id_use.h).
  std::vector<std::string> ops_id_sources;
  bool ops_id_unit = false;
  // The project code each compiled source reads (project_code): a first build's start order.
  std::vector<std::pair<std::string, ProjectCode>> project_code;
};

struct CompilePlan {
  codegen::GeneratedFiles files;        // the generated CMake project
  std::filesystem::path generated;      // <work>/project: where `files` are written
  std::filesystem::path cmake_dir;      // <work>/cmake-build
  std::vector<std::string> configure;   // the CMake configure command
  std::string configure_key;            // its stamp (<work>/configure.args): a change reconfigures
  std::filesystem::path configure_stamp;
  bool seed_configure = false;          // an empty build directory starts from a cmake seed (cmake_seed.h)
  std::string seed_languages;           // "CXX" or "CXX CUDA"
  std::string stamp_input;              // appended to the variant's up-to-date stamp input
  std::vector<std::string> archs;       // recorded in metadata.json
  std::filesystem::path library;        // the built module
  bool header_cache = false;            // the shared torch header cache (torch_pch.h) is used
  std::filesystem::path pch_header;     // <work>/torch-pch/torch_pch.h
  int nvcc_threads = 1;                 // nvcc's --threads (CUDA), outside the compile identity
  JobPlan jobs;                         // Ninja's -j and the note of the memory budget
  // Environment of the configure (no parallelism in it: it keys the cmake seed) and of Ninja.
  std::map<std::string, std::string> configure_env;
  std::map<std::string, std::string> compile_env;
  std::optional<std::filesystem::path> ccache;
  std::filesystem::path stats_log;      // ccache's stats log with --remote-cache
  bool remote_cache = false;
  std::vector<std::string> sources;     // the module's sources (project-relative), naming compile times
  std::map<std::string, ProjectCode> project_code;  // CompileFacts::project_code
};

// The module's sources (the framework's, then its kernel units'; project-relative) and the
// directories their includes are searched in (pure).
struct ModuleSources {
  std::vector<std::string> sources;
  std::vector<std::string> include_dirs;
};
ModuleSources module_sources(const BuildSettings& settings, const PlannedVariant& variant);

// `ops_id`, `work`: from the variant plan (variant_plan.h).
util::Result<CompilePlan> plan_compile(const BuildSettings& settings, const PlannedVariant& variant,
                                       const std::string& ops_id, const std::filesystem::path& work,
                                       const CompileFacts& facts);

// The Ninja command of the compile step: `jobs` jobs, only `outputs` when given.
std::vector<std::string> ninja_command(const CompilePlan& plan, int jobs, const std::vector<std::string>& outputs = {});

// NVCC_APPEND_FLAGS of the compile step: `existing` (the user's) then `--threads=N`; none when
// threads is 1 and there is nothing to keep.
std::optional<std::string> nvcc_append_flags(const std::optional<std::string>& existing, int threads);

}  // namespace kb::builder
