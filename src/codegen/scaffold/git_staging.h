// Making a new `kernel-builder init` project a git repository (docs/cli.md `init`): the files are
// written first by codegen::write_generated_files (which checks collisions before anything is
// written); then the directory is made a git repository (if it is not inside one) and the files
// are staged.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "codegen/generated_files.h"
#include "util/result.h"

namespace kb::scaffold {

struct GitOutcome {
  bool initialized = false;  // `git init` ran
  std::vector<std::string> warnings;
};

// `git init` unless `dir` is already inside a work tree, then `git add` of every file. A missing
// git executable is a warning, not an error: the project itself is complete without it.
util::Result<GitOutcome> stage_in_git(const std::filesystem::path& dir, const codegen::GeneratedFiles& files);

}  // namespace kb::scaffold
