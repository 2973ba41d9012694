// `kernels lock` for one dependency (loader.md §8.2): follow a redirect read at `main`, resolve
// `v<N>` to its commit, and hash every lockable variant of the recursive tree at that commit.
#pragma once

#include <string>

#include "loader/hub_reader.h"
#include "loader/lockfile.h"
#include "util/result.h"

namespace kb::loader {

util::Result<KernelLock> lock_dependency(HubReader& hub, const std::string& repo_id, int version);

}  // namespace kb::loader
