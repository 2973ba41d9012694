// `kernel-builder init` project generation (docs/build-output.md): renders every file of a new
// kernel project in memory from the embedded templates/init/ files with the template engine
// (codegen/templating/). Writing is a separate step (codegen::write_generated_files) so that
// collisions are checked before anything touches the disk.
#pragma once

#include <string>
#include <vector>

#include "codegen/generated_files.h"
#include "codegen/scaffold/kernel_identity.h"
#include "config/backend.h"
#include "util/result.h"

namespace kb::scaffold {

struct ScaffoldOptions {
  KernelIdentity identity;
  std::string license = "Apache-2.0";
  std::vector<config::Backend> backends;  // deduplicated, in the order given
};

// The backends `init` can scaffold (`--backends all`); upstream's `all` also listed cann, neuron
// and tpu without kernel units (QUIRK), ours does not.
const std::vector<config::Backend>& scaffold_backends();

// Parses `--backends` values (`all cpu cuda metal rocm xpu`), expanding `all` and removing
// duplicates; empty input gives the platform default (metal on macOS, cuda elsewhere).
util::Result<std::vector<config::Backend>> parse_scaffold_backends(const std::vector<std::string>& values);

// Every file of the project. A template that does not render (a name no context defines, a
// syntax error) is an internal error naming it.
util::Result<codegen::GeneratedFiles> render_scaffold(const ScaffoldOptions& options);

}  // namespace kb::scaffold
