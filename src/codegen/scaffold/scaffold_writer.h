// Writing a rendered scaffold to disk (cli.md `init`): all target paths are checked before
// anything is written, so a refused init leaves the directory untouched; then the directory is
// made a git repository (if it is not inside one) and the files are staged.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "codegen/scaffold/scaffold.h"
#include "util/result.h"

namespace kb::scaffold {

// Relative paths of `files` that already exist under `dir`, in file order.
std::vector<std::string> existing_targets(const std::filesystem::path& dir, const std::vector<GeneratedFile>& files);

// Writes `files` under `dir` (created if missing). Without `overwrite`, any existing target is
// the error `File(s) already exists in target directory: <list>` / ``Use `--overwrite` to
// overwrite.`` and nothing is written. Files not in `files` are never touched.
util::Status write_scaffold(const std::filesystem::path& dir, const std::vector<GeneratedFile>& files, bool overwrite);

struct GitOutcome {
  bool initialized = false;  // `git init` ran
  std::vector<std::string> warnings;
};

// `git init` unless `dir` is already inside a work tree, then `git add` of every file. A missing
// git executable is a warning, not an error: the project itself is complete without it.
util::Result<GitOutcome> stage_in_git(const std::filesystem::path& dir, const std::vector<GeneratedFile>& files);

}  // namespace kb::scaffold
