// Benchmark runs uploaded to kernel-hub (docs/hub-benchmarks.md), one record per run under
// benchmarks/<type>s/<namespace>/<name>/<id>.json of the Hub's RecordStore (backend.h; in the
// directory back end that file under the root, written atomically). A record holds the run document as the server validated and rendered it
// (hub/protocol/benchmark_run.h) plus who uploaded it, when, the commit its revision resolved to,
// whether the uploader was an outsider (not a member of the repository's namespace) and whether
// the repository's owners hid it; hiding is the only change a record sees, and owners may delete
// it. Format version: the record's "format" (kBenchmarkRecordFormat); records written before
// "outsider" existed have none (nullopt).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hub/storage/backend.h"
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
  std::optional<bool> outsider = std::nullopt;  // uploaded by a non-member of the namespace
  bool hidden = false;                          // hidden by the repository's owners
};

class BenchmarkStore {
 public:
  // The directory back end over `root`.
  explicit BenchmarkStore(const std::filesystem::path& root);
  // Records in `records` (which outlives the store).
  explicit BenchmarkStore(RecordStore& records);

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
  // Rewrites a record with `hidden` set (atomically); false when there is none with this id.
  util::Result<bool> set_hidden(const RepoId& repo, const std::string& id, bool hidden);
  // Removes a record; false when there is none with this id.
  util::Result<bool> remove(const RepoId& repo, const std::string& id);
  // The record's path under the Hub root ("benchmarks/kernels/<ns>/<name>/<id>.json"), which names
  // its quota charge (RepoStore::record_key).
  static std::string relative_path(const RepoId& repo, const std::string& id);

 private:
  static std::string repo_dir(const RepoId& repo);
  std::unique_ptr<RecordStore> owned_records_;  // the directory back end of BenchmarkStore(root)
  RecordStore& records_;
};

}  // namespace kb::hub::storage
