// Names of a new kernel project derived from `owner/repo` (docs/cli.md `init`): display name (the
// kernel name in build.toml), python name, class name and Hub repo id.
#pragma once

#include <string>
#include <string_view>

#include "util/result.h"

namespace kb::scaffold {

struct KernelIdentity {
  std::string owner;
  std::string repo;          // as given
  std::string display_name;  // repo with '_' -> '-'; written to general.name
  std::string python_name;   // lower-cased repo with '-' -> '_'
  std::string class_name;    // CamelCase of the parts of repo split at '-' / '_'
  std::string repo_id;       // owner/<display name>
};

// `owner/repo` with non-empty parts and no further '/', else `must be <owner>/<repo>`.
util::Result<std::pair<std::string, std::string>> parse_owner_repo(std::string_view text);

// Derives every name and validates the kernel name (docs/build-toml.md) up front.
util::Result<KernelIdentity> make_identity(std::string owner, std::string repo);

}  // namespace kb::scaffold
