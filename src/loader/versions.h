// Kernel versions (docs/python-api.md): the `v<N>` branches of a repository and the one text of a
// version that is not there, shared by `Installer::resolve_version` and the Python CLI (`_core`).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "loader/hub_reader.h"
#include "util/result.h"

namespace kb::loader {

// (N, commit) of every `v<N>` branch among `branches`, ascending by N.
std::vector<std::pair<int, std::string>> version_branches(const std::vector<Branch>& branches);

// `Version <N> not found, available versions: <a>, <b>` (usage), `versions` ascending.
util::Error version_not_found(int version, const std::vector<std::pair<int, std::string>>& versions);

}  // namespace kb::loader
