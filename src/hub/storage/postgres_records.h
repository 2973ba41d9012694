// The records of a Hub in PostgreSQL (backend.h), for replicas behind a load balancer
// (docs/hub-scale.md). One table, kb_records(path text primary key, data bytea), holds every record
// under the path the directory layout gives it; a text_pattern_ops index on path serves the
// prefix ranges of list/walk/remove_tree. kb_schema holds the schema version ("records" = 1); both
// are created on first use.
// Connections: a pool of at most `connections` (size it for the server's worker threads; a thread
// uses one connection at a time). Without a lock every call is its own statement (autocommit).
// `lock(name)` begins a transaction on a connection bound to the calling thread and takes
// pg_advisory_xact_lock(hashtextextended(name, 0)): every record the thread reads or writes while
// it holds a lock goes through that transaction, nested locks join it, and it commits when the
// outermost lock is released (RecordLock::release reports the commit) — so a branch update
// commits with its commit record, or not at all. If the process or its connection dies first,
// PostgreSQL rolls the transaction back and frees the advisory lock.
// A connection found dead (the server restarted, an idle connection was cut) is replaced; a
// statement outside a lock that lost its connection is retried once on a fresh one when it is
// idempotent (all but `append` and `create`).
// Errors are util::Error values (io; status 503 when PostgreSQL cannot be reached, 500 otherwise)
// naming the database by a URL without its password.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hub/storage/backend.h"

struct pg_conn;

namespace kb::hub::storage {

inline constexpr int kRecordsSchemaVersion = 1;

class PostgresRecords final : public RecordStore {
 public:
  // Connects once (so a wrong URL fails here, with a hint) and creates the schema if needed.
  // `url`: a libpq connection URI or key=value string, e.g. postgresql://kb@127.0.0.1:5432/kernel_hub.
  static util::Result<std::unique_ptr<PostgresRecords>> open(const std::string& url, size_t connections = 16);
  ~PostgresRecords() override;
  PostgresRecords(const PostgresRecords&) = delete;
  PostgresRecords& operator=(const PostgresRecords&) = delete;

  // The URL without its password, for messages.
  const std::string& display_url() const { return display_url_; }

  util::Result<std::optional<std::string>> read(const std::string& path) const override;
  util::Status write(const std::string& path, std::string_view data) override;
  util::Result<bool> create(const std::string& path, std::string_view data) override;
  util::Status append(const std::string& path, std::string_view data) override;
  util::Result<bool> exists(const std::string& path) const override;
  util::Result<std::vector<std::string>> list(const std::string& dir) const override;
  util::Status remove(const std::string& path) override;
  util::Status remove_tree(const std::string& dir) override;
  util::Status walk(const std::string& dir,
                    const std::function<util::Status(const std::string& path)>& visit) const override;
  util::Result<std::unique_ptr<RecordLock>> lock(const std::string& name) override;
  bool shared() const override { return true; }

  struct Statement;    // SQL text and parameters of one call
  struct Transaction;  // the calling thread's open transaction (under a lock)

  // Used by the lock object (postgres_records.cpp).
  util::Status finish(Transaction& transaction);

 private:
  PostgresRecords(std::string url, std::string display_url, size_t connections);
  util::Result<pg_conn*> connect() const;
  util::Result<pg_conn*> acquire() const;
  void give_back(pg_conn* connection) const;
  // The schema version recorded in the database; "" when it has no schema yet.
  util::Result<std::string> schema_version() const;
  util::Status create_missing_schema();
  util::Error schema_mismatch(const std::string& version) const;
  util::Status create_schema();
  // Runs `statement` on the thread's transaction, or on a pooled connection (retried once on a
  // fresh connection when `idempotent` and the connection was lost); `on_result` reads the rows.
  util::Status run(const Statement& statement, bool idempotent,
                   const std::function<util::Status(void* result)>& on_result = {}) const;
  Transaction* current() const;

  std::string url_;
  std::string display_url_;
  size_t max_connections_;
  mutable std::mutex pool_guard_;
  mutable std::condition_variable pool_changed_;
  mutable std::vector<pg_conn*> idle_;
  mutable size_t open_connections_ = 0;
};

}  // namespace kb::hub::storage
