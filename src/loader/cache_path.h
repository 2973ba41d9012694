// The last line of defence of every cache write: a path joined from names that came from a Hub, a
// lockfile or the user must land inside the cache directory, lexically and after resolving the
// symlinks of what already exists on the way (docs/hub-security.md, "The loader"). The name
// rules themselves are checked earlier (loader/hub_input.h); this catches whatever slips past.
#pragma once

#include <filesystem>
#include <string_view>

#include "util/result.h"

namespace kb::loader {

// `root / relative` after checking that `relative` is a '/'-separated relative path without
// empty, '.' or '..' components, backslashes or NUL, and that the result passes check_inside.
util::Result<std::filesystem::path> join_inside(const std::filesystem::path& root, std::string_view relative);
// The same joined onto `base`, a folder below `root` (a snapshot folder of the cache): the result
// passes check_inside(root, ...), so an existing snapshot link into `root`'s blobs/ is fine.
util::Result<std::filesystem::path> join_inside(const std::filesystem::path& root, const std::filesystem::path& base,
                                                std::string_view relative);

// Whether writing `path` stays inside `root`: `path` must lie strictly below `root` lexically,
// and once the symlinks of its existing parents (and of `path` itself, if it is a symlink,
// dangling or not) are resolved it must still lie below the resolved `root`. Error kind:
// invalid, naming both paths.
util::Status check_inside(const std::filesystem::path& root, const std::filesystem::path& path);

}  // namespace kb::loader
