// Where kernel-hub keeps its state. Everything the Hub persists is named by a
// path relative to its root, as the directory layout has always named it
// ("repos/kernels/acme/relu/refs.json", "objects/ab/<sha256>", "xet/xorbs/ab/<hash>"), and lives in
// one of two stores:
//   RecordStore  small records: repositories, refs, commits, discussions, accounts, tokens, quota
//                ledgers, ownership sets, Xet file records and indexes, benchmark runs, secrets;
//   BlobStore    bulk bytes: LFS and inline bodies (objects/) and xorbs (xet/xorbs/).
// Two back ends implement them: a directory (the embedded default; the files are byte for byte what
// earlier versions wrote) and, for replicas behind a load balancer, PostgreSQL for records and an
// S3-compatible object store for blobs. Because both name the same things the same way and hold
// the same bytes, `kernel-hub migrate` copies a Hub from one to the other and back unchanged.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kb::hub::storage {

// Held while a group of record changes must not interleave with another process's (a branch
// update, a quota charge). Released by destruction.
class RecordLock {
 public:
  virtual ~RecordLock() = default;
  // Releases the lock now (a second call does nothing). For the outermost lock of the database
  // back end this commits what the thread wrote under it and says whether that worked: a writer
  // whose change must be durable before it answers (a commit, a quota charge) calls it and
  // returns its error; destruction releases too, but cannot report a failed commit.
  virtual util::Status release() = 0;
};

// Paths are '/'-separated, relative, without "." or ".." segments or empty segments; every caller
// builds them from checked names.
class RecordStore {
 public:
  virtual ~RecordStore() = default;

  // nullopt when there is no record at `path`.
  virtual util::Result<std::optional<std::string>> read(const std::string& path) const = 0;
  // Creates or replaces the record atomically: a reader sees the old or the new bytes, never a mix.
  virtual util::Status write(const std::string& path, std::string_view data) = 0;
  // Creates the record if there is none; false (and nothing changed) when one exists.
  virtual util::Result<bool> create(const std::string& path, std::string_view data) = 0;
  // Appends to the record (creating it), durably before returning: append-only logs.
  virtual util::Status append(const std::string& path, std::string_view data) = 0;
  virtual util::Result<bool> exists(const std::string& path) const = 0;
  // Names of the direct children of `dir` (records and "folders" that hold records), sorted.
  virtual util::Result<std::vector<std::string>> list(const std::string& dir) const = 0;
  // No-op when absent.
  virtual util::Status remove(const std::string& path) = 0;
  virtual util::Status remove_tree(const std::string& dir) = 0;
  // Every record path under `dir` ("" for all), sorted; for migration and scans.
  virtual util::Status walk(const std::string& dir,
                            const std::function<util::Status(const std::string& path)>& visit) const = 0;

  // Exclusive among all threads, processes and replicas sharing the store, keyed by `name`
  // (e.g. "repos/kernels/acme/relu"), until the returned lock is destroyed. Locks taken by one
  // thread nest. In the database back end the records this thread writes while it holds a lock
  // are committed together when its outermost lock is released, and rolled back if the process
  // dies first.
  virtual util::Result<std::unique_ptr<RecordLock>> lock(const std::string& name) = 0;

  // True when other processes change records at any moment and unannounced (replicas over a
  // database): an in-memory cache of anything but immutable records must be revalidated.
  virtual bool shared() const = 0;
};

// Blob keys are paths like records'. Blobs are immutable once written (content-addressed).
class BlobStore {
 public:
  virtual ~BlobStore() = default;

  // Stores the content of a local file under `key` (the file is consumed: moved or uploaded and
  // removed); a crash never leaves a partial blob under its key.
  virtual util::Status put_file(const std::string& key, const std::filesystem::path& file) = 0;
  virtual util::Status put(const std::string& key, std::string_view data) = 0;
  // Size in bytes; nullopt when absent.
  virtual util::Result<std::optional<uint64_t>> size(const std::string& key) const = 0;
  // Bytes [offset, offset + length) (clamped to the blob).
  virtual util::Result<std::string> read(const std::string& key, uint64_t offset, uint64_t length) const = 0;
  // No-op when absent.
  virtual util::Status remove(const std::string& key) = 0;
  virtual util::Status walk(const std::string& prefix,
                            const std::function<util::Status(const std::string& key)>& visit) const = 0;

  // A local file holding the blob, for serving it with the kernel's help (the directory store).
  virtual std::optional<std::filesystem::path> local_path(const std::string& key) const = 0;
  // A URL any client may GET the blob from, for `ttl`, without other credentials (an object
  // store's presigned URL); nullopt when the store has none and the Hub serves bytes itself.
  // Range requests to the URL work.
  virtual std::optional<std::string> presigned_get(const std::string& key, std::chrono::seconds ttl) const = 0;
  // A local folder for staging uploads before put_file (same file system as the blobs when they
  // are local, so put_file is a rename).
  virtual const std::filesystem::path& staging_dir() const = 0;
};

// Which back end a Hub runs on, as `kernel-hub serve` and `kernel-hub migrate` are told
// (docs/hub-scale.md). Without `database` and `object_store` the Hub is the directory `root`;
// with both it is PostgreSQL records plus S3 blobs, and `root` is only this machine's scratch
// (staging of uploads, request bodies): replicas each have their own. With `object_store` alone
// the records stay under `root` and the blobs (and downloads) go to the object store: one Hub.
struct BackendConfig {
  std::filesystem::path root;
  std::string database;      // a libpq URI, e.g. postgresql://kb@127.0.0.1:5432/kernel_hub
  std::string object_store;  // s3://BUCKET?endpoint=http://127.0.0.1:PORT&region=us-east-1
  size_t connections = 16;   // database connections at most (one per worker thread in use)

  // Records shared through a database: any number of replicas may serve this Hub.
  bool replicated() const { return !database.empty(); }
  // "directory `/srv/hub`", with the object store if any, or the database (without its password)
  // and the object store.
  std::string describe() const;
};

// One Hub's two stores, opened. The blobs are shared with what serves them (HubService).
struct Backend {
  std::unique_ptr<RecordStore> records;
  std::shared_ptr<BlobStore> blobs;
  std::string description;  // BackendConfig::describe()
};

// Checks the configuration (no database without an object store) without connecting.
util::Status check_backend_config(const BackendConfig& config);

// Opens the stores: creates the directory root, or connects to the database (creating its schema)
// and checks that the bucket answers with the credentials of AWS_ACCESS_KEY_ID /
// AWS_SECRET_ACCESS_KEY. Errors say which service failed, with a hint.
util::Result<Backend> open_backend(const BackendConfig& config);

}  // namespace kb::hub::storage
