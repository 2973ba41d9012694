// The oldest `kernels` (the Python loader) that can load a variant of a kernel, written to
// metadata.json as `kernels-minver`: derived from the features the kernel uses for a backend, and
// raised by build.toml's `[general] kernels-minver`.
#pragma once

#include <optional>
#include <string>

#include "config/backend.h"
#include "config/model.h"

namespace kb::config {

// The rule, one row per feature (docs/build-toml.md lists it):
//   kernel-depends (general or the backend's) — 0.17.0, the first `kernels` that loads them.
// The result is the highest of the rows that apply and `general.kernels_minver`; nullopt when
// nothing applies (any `kernels` loads the variant; no key is written).
std::optional<Version> required_kernels_version(const BuildConfig& config, Backend backend);

// `0.17.0`: at least major.minor.patch, as metadata.json records it.
std::string kernels_version_text(const Version& version);

}  // namespace kb::config
