// metadata.json's `kernels-minver` at load time: the installed `kernels` version (its release
// part) must not be older than the version a variant requires.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "config/version.h"
#include "metadata/metadata.h"
#include "util/result.h"

namespace kb::loader {

// The release part of a PEP 440 version: `0.18.0` of `0.18.0`, `0.18.0rc1`, `0.18.0.dev3`,
// `0.18.0.post1`, `v0.18.0+local`, `1!0.18.0`; nullopt when `text` is not such a version (a VCS
// describe string): then nothing is checked.
std::optional<config::Version> release_version(std::string_view text);

// Error (kind generic: RuntimeError) when `metadata` requires a newer `kernels` than `installed`
// (`kernels.__version__`); nothing when it requires none, or `installed` is empty or unparsable.
util::Status check_kernels_minver(const metadata::Metadata& metadata, const std::string& variant,
                                  const std::string& installed);

}  // namespace kb::loader
