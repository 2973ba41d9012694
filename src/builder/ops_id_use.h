// Which sources of an arch variant see the ops id (docs/build-engine.md). The ops id changes with
// every commit (it names the git tree), so a source compiled with it recompiles after every
// commit. Only the sources that name the ops id macro (TORCH_EXTENSION_NAME, or
// TVM_FFI_EXTENSION_NAME for TVM-FFI) get it. Better still, when the macro appears only as the
// name given to registration.h's macros (TORCH_LIBRARY_EXPAND, TORCH_LIBRARY_IMPL_EXPAND and one
// REGISTER_EXTENSION), no source gets it: registration.h then reads the ops id from the generated
// kb_ops_id.cpp at load time, and a commit recompiles that one small file.
//
// A source is read with the project headers it includes (quoted includes found next to it or in
// the module's include directories, angle-bracket includes found in those directories); comments and string literals are not read. A project header
// named registration.h that is not the builder's own text keeps the macro on its includers.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "builder/project_includes.h"

namespace kb::builder {

// How one source (with its headers) uses the ops id macro.
struct OpsIdScan {
  bool other_use = false;      // the macro outside the registration macros, those macros with another
                               // name, or a registration.h of the project's own
  bool registers = false;      // registration macros called with the macro
  int register_extension = 0;  // REGISTER_EXTENSION(<macro>) calls
};

// Scans one text for `macro`'s uses (pure). `with_registration_macros`: false for TVM-FFI, where
// every use of the macro is an "other use".
OpsIdScan scan_ops_id_text(const std::string& text, const std::string& macro, bool with_registration_macros = true);
// Merges the scan of an included header into its includer's.
void merge_scan(OpsIdScan& into, const OpsIdScan& header);

struct OpsIdUse {
  std::vector<std::string> sources;  // compiled with the macro defined to the ops id
  bool unit = false;                 // the registration macros read the generated kb_ops_id.cpp
};

// The decision (pure), from the scans of every compiled source. `unit_possible`: a [torch]
// project's CPU, CUDA or Metal variant that does not target the stable ABI.
OpsIdUse plan_ops_id_use(const std::vector<std::pair<std::string, OpsIdScan>>& scans, bool unit_possible);

// Scans the compiled `sources` (relative to the walker's project; headers among them are skipped)
// with the project headers they include.
std::vector<std::pair<std::string, OpsIdScan>> scan_ops_id_sources(ProjectIncludeWalker& walker,
                                                                   const std::vector<std::string>& sources,
                                                                   const std::string& macro,
                                                                   bool with_registration_macros);

}  // namespace kb::builder
