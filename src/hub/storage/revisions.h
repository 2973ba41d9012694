// How the repository store reads revision strings: refs/pr/<n>, refs/heads/<b>, refs/tags/<t>,
// and 40-hex commit ids. Shared by the repository store's sources (repo_*.cpp).
#pragma once

#include <optional>
#include <string>

namespace kb::hub::storage {

inline bool is_commit_id(const std::string& text) {
  if (text.size() != 40) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// The number of "refs/pr/<n>", or nullopt for anything else.
inline std::optional<int> pr_number(const std::string& revision) {
  const std::string prefix = "refs/pr/";
  if (revision.rfind(prefix, 0) != 0) return std::nullopt;
  std::string digits = revision.substr(prefix.size());
  if (digits.empty() || digits.size() > 9) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return std::stoi(digits);
}

// "refs/heads/<b>" -> "<b>"; anything else unchanged.
inline std::string branch_name(const std::string& revision) {
  const std::string prefix = "refs/heads/";
  return revision.rfind(prefix, 0) == 0 ? revision.substr(prefix.size()) : revision;
}

// "refs/tags/<t>" -> "<t>"; anything else unchanged.
inline std::string tag_name(const std::string& revision) {
  const std::string prefix = "refs/tags/";
  return revision.rfind(prefix, 0) == 0 ? revision.substr(prefix.size()) : revision;
}

}  // namespace kb::hub::storage
