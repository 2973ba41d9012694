// `update-build` as a pure function: legacy (v4 / v3) build.toml text -> edition-5 text, keeping
// comments and kernel order (docs/build-toml.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kb::config {

// std::nullopt when `text` is already edition 5 (nothing to do); the edition-5 text otherwise.
// Errors: `Cannot update build configuration` caused by the parse diagnostics, or by
// `Cannot migrate configuration: "The `license` key is required in the `general` section"`.
util::Result<std::optional<std::string>> migrate_build_toml(std::string_view text, std::string_view file_name);

}  // namespace kb::config
