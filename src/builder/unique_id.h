// The unique id of a build and the project's git state (docs/build-output.md provenance).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "metadata/metadata.h"
#include "util/result.h"

namespace kb::builder {

// Git facts of the project: HEAD's commit and tree ids, and whether a tracked file differs from
// HEAD (index or work tree; untracked/ignored files and submodules do not count).
struct GitInfo {
  std::string commit;  // 40 hex
  std::string tree;    // 40 hex
  bool dirty = false;
};

// Nothing when `dir` is not inside a git work tree or HEAD has no commit yet.
std::optional<GitInfo> read_git_info(const std::filesystem::path& dir);

// 8 little-endian bytes of `value`, base32 (RFC 4648, lower-case, no padding): 13 characters.
std::string base32_id(uint64_t value);

// A requested unique id becomes part of the ops module's name (`_<kernel>_<id>`: a C symbol, a
// Python module and a torch op namespace), so it may hold only ASCII letters, digits and `_`.
util::Status check_unique_id(const std::string& id);

// `--unique-id` if given; else the first 7 hex digits of HEAD's tree id (+ `_dirty`); else a
// random base32 id.
std::string make_unique_id(const std::optional<std::string>& requested, const std::optional<GitInfo>& git);

// The `kernel` part of provenance from git (nothing outside a git repository).
std::optional<metadata::GitState> kernel_git_state(const std::optional<GitInfo>& git);

}  // namespace kb::builder
