// The kernel-name rule (docs/build-toml.md), shared by build.toml, metadata.json and `init`.
#pragma once

#include <string_view>

#include "util/result.h"

namespace kb::config {

// True when `name` matches ^[a-z][-a-z0-9]*[a-z0-9]$.
bool is_valid_kernel_name(std::string_view name);

// Ok, or the upstream multi-line error `Invalid kernel name `<name>`. Name must: ...`.
util::Status validate_kernel_name(std::string_view name);

}  // namespace kb::config
