// `kernel-status.toml` (docs/python-api.md install step 1): a repository may redirect loaders to
// another repository. Parsing only; fetching is the installer's job.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kb::loader {

struct Redirect {
  std::string destination;      // "org/name"
  std::string revision = "main";
};

// Parses the file; the only known kind is "redirect". Errors carry the spec's messages.
util::Result<Redirect> parse_kernel_status(std::string_view text);

}  // namespace kb::loader
