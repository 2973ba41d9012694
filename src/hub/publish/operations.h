// Planning the per-branch operations of an upload (docs/hub-api.md): which files to
// add and which remote files to delete, as a pure function of local files and remote trees.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kb::hub::publish {

struct LocalFile {
  std::string path_in_repo;
  std::filesystem::path local_path;
};

struct BranchPlan {
  std::vector<LocalFile> additions;    // sorted by path_in_repo
  std::vector<std::string> deletions;  // sorted
  bool empty() const { return additions.empty() && deletions.empty(); }
};

struct VersionBranchInput {
  std::vector<LocalFile> benchmarks;             // benchmarks/benchmark*.py
  std::vector<std::string> uploaded_variants;    // names
  std::vector<LocalFile> variant_files;          // build/<variant>/<rel>
  std::set<std::string> remote_files;            // current files of the branch
  // This upload created the branch (forked from main): the build/ and benchmarks/ files it
  // inherited are stale. Which files were inherited: those of `fork_files` when set (the branch's
  // tree when it was created; a retry after another uploader's commit must not take that
  // uploader's variants for inherited ones), else all of `remote_files`.
  bool new_branch = false;
  std::optional<std::set<std::string>> fork_files;
};

BranchPlan plan_version_branch(const VersionBranchInput& input);

// benchmark*.py file names (the pattern `upload` uses).
bool is_benchmark_script(const std::string& file_name);

}  // namespace kb::hub::publish
