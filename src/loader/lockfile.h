// `kernels.lock` (docs/loader.md): the per-variant lock hash over a recursive tree listing, and
// reading/writing the JSON file. Two entry shapes: the structured one (`{"dependency": {"repo-id",
// "version" | "revision"}, "lock": {"commit"}}`, keyed by what was required: `kernels lock` writes
// it, with every kernel dependency of the locked kernels) and the older `{"repo_id", "sha",
// "variants"}` one (read, and written for entries without a requirement). Reading tolerates
// unknown keys.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace kb::loader {

// One file of a recursive tree listing: repo path and its hash (LFS sha256 when the file is in
// LFS, else the git blob id), both hex.
struct TreeFile {
  std::string path;
  std::string hash;
};

struct VariantLock {
  std::string hash;  // "sha256-<64 hex>"
  std::string hash_type = "git_lfs_concat";
};

struct KernelLock {
  std::string repo_id;
  std::string sha;
  std::map<std::string, VariantLock> variants;  // sorted by name, as upstream's JSON dump
  // What the entry locks (structured entries only, exactly one of them): a version or a revision.
  std::optional<long long> version;
  std::optional<std::string> revision;

  bool structured() const { return version.has_value() || revision.has_value(); }
};

// Groups `build/torch*` and `build/tvm-ffi*` files by variant (skipping *.pyc and __pycache__)
// and hashes each group: SHA-256 over sorted (filename bytes, hex hash bytes) pairs.
std::map<std::string, VariantLock> compute_variant_locks(const std::vector<TreeFile>& files);

std::string render_lockfile(const std::vector<KernelLock>& locks);
util::Result<std::vector<KernelLock>> parse_lockfile(const std::string& text);

}  // namespace kb::loader
