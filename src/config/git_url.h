// GitUrl parsing (docs/build-toml.md): URLs with a git-capable scheme, or scp-like
// `user@host:path`, which is normalised to `ssh://user@host/path`.
#pragma once

#include <string_view>

#include "config/model.h"
#include "util/result.h"

namespace kb::config {

// Errors: `unsupported scheme `<s>` in git URL `<url>`, expected one of: ...` and
// `invalid git URL `<url>``.
util::Result<GitUrl> parse_git_url(std::string_view text);

}  // namespace kb::config
