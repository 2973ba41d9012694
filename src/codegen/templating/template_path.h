// Template file paths: a template tree names its files with `{name}` parts, e.g.
// templates/init/{n}_cuda/{n}.cu, because Jinja's `{{ }}` cannot appear in every file system's
// names nor be read comfortably in a listing.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace kb::codegen::templating {

// Substitutes `{name}` in a template file path, e.g. `{n}_cuda/{n}.cu` -> `relu_cuda/relu.cu`;
// unknown names are kept as they are.
std::string render_path(std::string_view path, const std::map<std::string, std::string>& values);

}  // namespace kb::codegen::templating
