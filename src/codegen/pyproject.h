// `create-pyproject` (docs/build-output.md): a self-contained CMake + setuptools project for a
// kernel, rendered in memory (the command writes it, refusing to overwrite without --force).
#pragma once

#include <string>
#include <vector>

#include "codegen/generated_files.h"
#include "config/model.h"
#include "metadata/metadata.h"
#include "util/result.h"

namespace kb::codegen {

struct PyprojectInput {
  const config::BuildConfig* config = nullptr;
  // How the generated CMakeLists refers to the kernel sources: `${CMAKE_CURRENT_SOURCE_DIR}` when
  // generating into the project itself, else the project's absolute path.
  std::string project_dir = "${CMAKE_CURRENT_SOURCE_DIR}";
  std::string unique_id;
  metadata::Provenance provenance;
};

util::Result<GeneratedFiles> generate_pyproject(const PyprojectInput& input);

// The `metadata-<backend>.json` of one backend: metadata without archs/digest, with provenance.
util::Result<std::string> render_backend_metadata(const PyprojectInput& input, config::Backend backend);

// Every path `create-pyproject` may produce for this project, including the `_ops.py` that
// configuring writes (what `clean-pyproject` deletes).
std::vector<std::string> pyproject_artifacts(const config::BuildConfig& config);

}  // namespace kb::codegen
