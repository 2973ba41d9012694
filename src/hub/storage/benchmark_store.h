// Benchmark runs uploaded to kernel-hub (docs/hub-benchmarks.md), one record per run under
// <root>/benchmarks/<type>s/<namespace>/<name>/<id>.json, each written atomically (temp + fsync
// + rename) and never changed afterwards. A record holds the run document as the server
// validated and rendered it (hub/protocol/benchmark_run.h) plus who uploaded it, when, and the
// commit its revision resolved to. Format version: the record's "format" (kBenchmarkRecordFormat).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "hub/storage/repo_store.h"
#include "util/result.h"

namespace kb::hub::storage {

inline constexpr int kBenchmarkRecordFormat = 1;

struct BenchmarkRecord {
  std::string id;           // 20 lowercase hex digits (random)
  std::string revision;     // the commit the run's kernel.revision resolved to
  std::string uploaded_by;  // user name
  std::string uploaded_at;  // ISO-8601 UTC
  std::string document;     // canonical JSON of the run document
};

class BenchmarkStore {
 public:
  explicit BenchmarkStore(const std::filesystem::path& root);

  // A new random run id (20 lowercase hex digits), and whether a text is one.
  static std::string new_id();
  static bool valid_id(const std::string& id);
  // The bytes add() writes for `record` (what the uploader's quota is charged for).
  static std::string serialize(const BenchmarkRecord& record);

  // Stores a new record under its id (from new_id()); an existing id is refused.
  util::Status add(const RepoId& repo, const BenchmarkRecord& record);
  // Every record of the repository, oldest first (by upload time, then id).
  util::Result<std::vector<BenchmarkRecord>> list(const RepoId& repo) const;
  // One record; nullopt when the repository has none with this id.
  util::Result<std::optional<BenchmarkRecord>> get(const RepoId& repo, const std::string& id) const;

 private:
  std::filesystem::path repo_dir(const RepoId& repo) const;
  std::filesystem::path dir_;
};

}  // namespace kb::hub::storage
