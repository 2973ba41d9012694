// Deriving the names of a new kernel project (see kernel_identity.h).
#include "codegen/scaffold/kernel_identity.h"

#include <algorithm>
#include <cctype>

#include "config/kernel_name.h"
#include "util/strings.h"

namespace kb::scaffold {

util::Result<std::pair<std::string, std::string>> parse_owner_repo(std::string_view text) {
  auto slash = text.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == text.size() ||
      text.find('/', slash + 1) != std::string_view::npos) {
    return util::Error(util::ErrorKind::usage, "must be <owner>/<repo>");
  }
  return std::make_pair(std::string(text.substr(0, slash)), std::string(text.substr(slash + 1)));
}

util::Result<KernelIdentity> make_identity(std::string owner, std::string repo) {
  KernelIdentity id;
  id.owner = std::move(owner);
  id.repo = std::move(repo);
  id.display_name = id.repo;
  std::replace(id.display_name.begin(), id.display_name.end(), '_', '-');
  id.python_name = util::to_lower(id.repo);
  std::replace(id.python_name.begin(), id.python_name.end(), '-', '_');
  const std::string part_separators = "-_";
  bool capitalize = true;
  for (char c : id.repo) {
    if (part_separators.find(c) != std::string::npos) {
      capitalize = true;
      continue;
    }
    id.class_name.push_back(capitalize ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c);
    capitalize = false;
  }
  id.repo_id = id.owner + "/" + id.display_name;
  KB_TRY(config::validate_kernel_name(id.display_name));
  return id;
}

}  // namespace kb::scaffold
