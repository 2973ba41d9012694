// Carrying comments through `update-build`: finds the comments of a build.toml and anchors each
// to the table header or key it precedes (or follows on the same line), using the anchor names
// the edition-5 writer emits, so the rewritten file keeps them next to the same settings.
#pragma once

#include <string_view>

#include "config/writer.h"

namespace kb::config {

// Comments of `text` (which must be valid TOML; otherwise no comments are returned). Comments
// inside multi-line values move before the key they belong to; comments after the last setting
// become final lines.
TomlComments extract_comments(std::string_view text);

}  // namespace kb::config
