// Receipts for verified variant snapshots: after a variant's files were checked against the
// metadata digest, we record each file's size and modification time. A warm load that finds the
// same set of files with the same stat data trusts them without re-hashing; any difference sends
// the load back to full verification. Stored outside the repo folders
// (`<cache>/.kernels-receipts/…`), where huggingface_hub does not look.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "loader/cache_layout.h"
#include "util/result.h"

namespace kb::loader {

util::Status write_receipt(const RepoCache& cache, const std::string& commit, const std::string& variant);
// True when the receipt exists and the snapshot's variant directory still matches it.
bool receipt_valid(const RepoCache& cache, const std::string& commit, const std::string& variant);
void remove_receipt(const RepoCache& cache, const std::string& commit, const std::string& variant);

// The cached non-recursive listing of `build/` at an (immutable) commit.
util::Status write_build_listing(const RepoCache& cache, const std::string& commit,
                                 const std::vector<std::string>& names);
std::optional<std::vector<std::string>> read_build_listing(const RepoCache& cache, const std::string& commit);

}  // namespace kb::loader
