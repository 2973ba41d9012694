// The result of code generation: an in-memory set of (relative path -> bytes), and the one step
// that writes it to disk (the variant's CMake project, create-pyproject and `init` alike).
// Generation is pure; writing checks for collisions before it touches anything.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/templating/template.h"
#include "util/result.h"

namespace kb::codegen {

using GeneratedFiles = std::map<std::string, std::string>;  // '/'-separated relative path -> content

// Relative paths of `files` that already exist under `root` (a dangling symbolic link counts),
// sorted.
std::vector<std::string> existing_files(const std::filesystem::path& root, const GeneratedFiles& files);

// Writes every file under `root` (created if missing); files not in `files` are never touched.
// Without `overwrite`, any existing target aborts before anything is written:
// `File(s) already exists in target directory: <a, b>` + newline +
// ``Use `<overwrite_flag>` to overwrite.`` (`--overwrite` for init, `--force` for
// create-pyproject). Files whose content is unchanged are not rewritten (so their modification
// time, and incremental builds, are preserved).
util::Status write_generated_files(const std::filesystem::path& root, const GeneratedFiles& files, bool overwrite,
                                   std::string_view overwrite_flag);

// Renders the embedded template templates/project/<path> in strict mode (an undefined name is
// an internal error naming the template).
util::Result<std::string> render_project_template(std::string_view path, const templating::Context& context = {});

// Renders templates/project/<template_path> into `files[path]`.
util::Status add_project_template(GeneratedFiles& files, const std::string& path, std::string_view template_path,
                                  const templating::Context& context = {});

}  // namespace kb::codegen
