// The result of code generation: an in-memory set of (relative path -> bytes). Generation is
// pure; writing to disk is one separate step that checks for collisions first.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "util/result.h"

namespace kb::codegen {

using GeneratedFiles = std::map<std::string, std::string>;  // '/'-separated relative path -> content

// Relative paths of `files` that already exist under `root` (sorted).
std::vector<std::string> existing_files(const std::filesystem::path& root, const GeneratedFiles& files);

// Writes every file under `root`. Without `overwrite`, any existing target aborts before
// anything is written: `File(s) already exists in target directory: <a, b>` + newline +
// `Use `<overwrite_flag>` to overwrite.`. Files whose content is unchanged are not rewritten
// (so their modification time, and incremental builds, are preserved).
util::Status write_generated_files(const std::filesystem::path& root, const GeneratedFiles& files, bool overwrite,
                                   const std::string& overwrite_flag = "--force");

// Replaces every `@NAME@` of `text` with its value; unknown names are left as they are.
std::string substitute(std::string_view text, const std::map<std::string, std::string>& values);

// An embedded template of templates/project/ by relative path (empty if missing: a build bug).
std::string project_template(std::string_view path);

}  // namespace kb::codegen
