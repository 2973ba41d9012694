// get_local_kernel's search (docs/python-api.md): which variant directory of a local project, build
// directory or variant directory to import — never a directory of variants taken for a variant.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "loader/selection.h"
#include "util/result.h"

namespace kb::loader {

// The sorted names of the subdirectories of `dir` (none when it is not a readable directory).
std::vector<std::string> local_variant_dirs(const std::filesystem::path& dir);

struct LocalChoice {
  std::filesystem::path variant_path;
  std::string fallback_warning;  // non-empty when the CPU fallback chose the variant
};

// For `base` in `repo_path`, `repo_path/build`: the best variant among its subdirectories. Else
// `repo_path` itself when it holds a metadata.json. Else not_found: the "no variant" error with the
// trace of the first of them that has variants, or `Could not find kernel in <path>` when
// `repo_path` does not exist.
util::Result<LocalChoice> find_local_variant(const std::filesystem::path& repo_path, const SystemInfo& system);

// The decisions `kernels variants <dir>` shows: those of the first of `dir`, `dir/build` that has
// variants (of `dir/build` when neither has), and the names they were made from.
struct LocalListing {
  std::filesystem::path base;
  std::vector<std::string> names;
  Selection selection;
};
LocalListing list_local_variants(const std::filesystem::path& repo_path, const SystemInfo& system);

}  // namespace kb::loader
