// Records in PostgreSQL through libpq (see postgres_records.h).
#include "hub/storage/postgres_records.h"

#include <libpq-fe.h>

#include <map>
#include <optional>
#include <utility>

#include "util/strings.h"

namespace kb::hub::storage {

namespace {

constexpr const char* kConnectHint =
    "start it (`scripts/services/postgres start DIR` prints a URL for a local one) or check --database";

using ResultPtr = std::unique_ptr<PGresult, decltype(&PQclear)>;

std::string trimmed(const char* text) { return text ? std::string(util::trim(std::string(text))) : std::string(); }

// "postgresql://user@host:port/dbname", never the password.
std::string redacted(const std::string& url) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
  if (!options) {
    if (error) PQfreemem(error);
    return "(an unparsable connection string)";
  }
  std::map<std::string, std::string> values;
  for (PQconninfoOption* o = options; o->keyword; ++o) {
    if (o->val) values[o->keyword] = o->val;
  }
  PQconninfoFree(options);
  std::string out = "postgresql://";
  if (!values["user"].empty()) out += values["user"] + "@";
  out += values["host"].empty() ? (values["hostaddr"].empty() ? "localhost" : values["hostaddr"]) : values["host"];
  if (!values["port"].empty()) out += ":" + values["port"];
  out += "/" + values["dbname"];
  return out;
}

bool connection_ok(PGconn* connection) { return PQstatus(connection) == CONNECTION_OK; }

// An idle pooled connection is usable: nothing the server sent while it idled says it is gone.
bool healthy(PGconn* connection) {
  if (!connection_ok(connection)) return false;
  if (PQconsumeInput(connection) == 0) return false;
  return connection_ok(connection) && PQtransactionStatus(connection) == PQTRANS_IDLE;
}

// The upper bound of the paths under `prefix` ("a/b/" -> "a/b0": '0' follows '/').
std::string prefix_end(std::string prefix) {
  prefix.back() = static_cast<char>(prefix.back() + 1);
  return prefix;
}

}  // namespace

struct PostgresRecords::Statement {
  std::string sql;
  std::vector<std::string> text;       // text parameters $1.. first
  std::optional<std::string_view> data;  // then one bytea parameter, sent as binary
};

struct PostgresRecords::Transaction {
  PGconn* connection = nullptr;
  int depth = 0;
  bool failed = false;  // a statement failed: PostgreSQL aborted the transaction
};

namespace {

// The transactions of this thread, one per store (a process may hold several stores).
std::map<const PostgresRecords*, PostgresRecords::Transaction>& thread_transactions() {
  static thread_local std::map<const PostgresRecords*, PostgresRecords::Transaction> transactions;
  return transactions;
}

class PostgresLock final : public RecordLock {
 public:
  PostgresLock(PostgresRecords* store, PostgresRecords::Transaction* transaction)
      : store_(store), transaction_(transaction) {}
  ~PostgresLock() override { (void)release(); }
  util::Status release() override {
    if (!store_) return {};
    auto* store = std::exchange(store_, nullptr);
    return store->finish(*transaction_);
  }

 private:
  PostgresRecords* store_;
  PostgresRecords::Transaction* transaction_;
};

util::Error database_error(const std::string& display_url, PGconn* connection, PGresult* result,
                           const std::string& what) {
  if (!connection_ok(connection)) {
    util::Error error(util::ErrorKind::io, "Lost the connection to PostgreSQL at " + display_url + " while " + what);
    error.status = 503;
    error.causes.push_back(trimmed(PQerrorMessage(connection)));
    error.hints.push_back(kConnectHint);
    return error;
  }
  std::string state = result ? trimmed(PQresultErrorField(result, PG_DIAG_SQLSTATE)) : "";
  util::Error error(util::ErrorKind::io, "PostgreSQL at " + display_url + " failed while " + what);
  error.status = 500;
  error.causes.push_back(result ? trimmed(PQresultErrorMessage(result)) : trimmed(PQerrorMessage(connection)));
  if (state == "55P03") error.hints.push_back("another replica held the lock longer than lock_timeout (60 s)");
  if (state == "40P01") error.hints.push_back("two requests waited for each other's locks; retry the request");
  return error;
}

}  // namespace

PostgresRecords::PostgresRecords(std::string url, std::string display_url, size_t connections)
    : url_(std::move(url)), display_url_(std::move(display_url)), max_connections_(connections ? connections : 1) {}

PostgresRecords::~PostgresRecords() {
  std::lock_guard<std::mutex> guard(pool_guard_);
  for (PGconn* connection : idle_) PQfinish(connection);
}

util::Result<std::unique_ptr<PostgresRecords>> PostgresRecords::open(const std::string& url, size_t connections) {
  std::unique_ptr<PostgresRecords> store(new PostgresRecords(url, redacted(url), connections));
  KB_TRY(store->create_schema());
  return store;
}

util::Result<PGconn*> PostgresRecords::connect() const {
  const char* keywords[] = {"dbname", "connect_timeout", "application_name", nullptr};
  const char* values[] = {url_.c_str(), "10", "kernel-hub", nullptr};
  PGconn* connection = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (!connection || !connection_ok(connection)) {
    util::Error error(util::ErrorKind::io, "Cannot reach PostgreSQL at " + display_url_);
    error.status = 503;
    if (connection) error.causes.push_back(trimmed(PQerrorMessage(connection)));
    error.hints.push_back(kConnectHint);
    if (connection) PQfinish(connection);
    return error;
  }
  // A lock wait is bounded, so a stuck replica cannot hang every other one; notices of
  // CREATE ... IF NOT EXISTS stay off stderr.
  PGresult* set = PQexec(connection, "SET lock_timeout = '60s'; SET client_min_messages = warning");
  bool ok = PQresultStatus(set) == PGRES_COMMAND_OK;
  PQclear(set);
  if (!ok) {
    auto error = database_error(display_url_, connection, nullptr, "setting up a connection");
    PQfinish(connection);
    return error;
  }
  return connection;
}

util::Result<PGconn*> PostgresRecords::acquire() const {
  std::unique_lock<std::mutex> guard(pool_guard_);
  for (;;) {
    if (!idle_.empty()) {
      PGconn* connection = idle_.back();
      idle_.pop_back();
      if (healthy(connection)) return connection;
      PQfinish(connection);  // replaced below
      --open_connections_;
      continue;
    }
    if (open_connections_ < max_connections_) {
      ++open_connections_;
      guard.unlock();
      auto connection = connect();
      if (!connection) {
        guard.lock();
        --open_connections_;
        pool_changed_.notify_one();
      }
      return connection;
    }
    pool_changed_.wait(guard);
  }
}

void PostgresRecords::give_back(PGconn* connection) const {
  std::lock_guard<std::mutex> guard(pool_guard_);
  if (connection_ok(connection) && PQtransactionStatus(connection) == PQTRANS_IDLE) {
    idle_.push_back(connection);
  } else {
    PQfinish(connection);
    --open_connections_;
  }
  pool_changed_.notify_one();
}

PostgresRecords::Transaction* PostgresRecords::current() const {
  auto& transactions = thread_transactions();
  auto it = transactions.find(this);
  return it == transactions.end() ? nullptr : &it->second;
}

namespace {

ResultPtr execute(PGconn* connection, const PostgresRecords::Statement& statement) {
  std::vector<const char*> values;
  std::vector<int> lengths;
  std::vector<int> formats;
  for (const auto& text : statement.text) {
    values.push_back(text.c_str());
    lengths.push_back(0);
    formats.push_back(0);
  }
  if (statement.data) {
    values.push_back(statement.data->data());
    lengths.push_back(static_cast<int>(statement.data->size()));
    formats.push_back(1);
  }
  // Binary results: text columns arrive as their bytes, bytea as the record's bytes.
  return ResultPtr(PQexecParams(connection, statement.sql.c_str(), static_cast<int>(values.size()), nullptr,
                                values.data(), lengths.data(), formats.data(), 1),
                   &PQclear);
}

bool succeeded(PGresult* result) {
  auto status = PQresultStatus(result);
  return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
}

}  // namespace


util::Status PostgresRecords::run(const Statement& statement, bool idempotent,
                                  const std::function<util::Status(void* result)>& on_result) const {
  std::string what = "running `" + statement.sql.substr(0, statement.sql.find(' ', 7)) + "`" +
                     (statement.text.empty() ? "" : " on `" + statement.text[0] + "`");
  if (Transaction* transaction = current()) {
    if (transaction->failed) {
      return util::Error(util::ErrorKind::io, "PostgreSQL transaction at " + display_url_ +
                                                  " failed earlier under this lock; nothing more is written");
    }
    ResultPtr result = execute(transaction->connection, statement);
    if (!succeeded(result.get())) {
      transaction->failed = true;
      return database_error(display_url_, transaction->connection, result.get(), what);
    }
    return on_result ? on_result(result.get()) : util::Status{};
  }
  for (int attempt = 0;; ++attempt) {
    auto connection = acquire();
    if (!connection) return std::move(connection).error();
    ResultPtr result = execute(*connection, statement);
    if (succeeded(result.get())) {
      util::Status status = on_result ? on_result(result.get()) : util::Status{};
      result.reset();
      give_back(*connection);
      return status;
    }
    util::Error error = database_error(display_url_, *connection, result.get(), what);
    bool lost = !connection_ok(*connection);
    result.reset();
    give_back(*connection);
    if (!lost || !idempotent || attempt > 0) return error;
  }
}

util::Result<std::string> PostgresRecords::schema_version() const {
  bool exists = false;
  // Results come in binary format, where text is its bytes: the answer is asked for as text.
  KB_TRY(run({"SELECT (to_regclass('kb_schema') IS NOT NULL)::text", {}, {}}, true, [&](void* raw) {
    auto* result = static_cast<PGresult*>(raw);
    exists = PQntuples(result) == 1 &&
             std::string_view(PQgetvalue(result, 0, 0), static_cast<size_t>(PQgetlength(result, 0, 0))) == "true";
    return util::Status{};
  }));
  std::string version;
  if (!exists) return version;
  KB_TRY(run({"SELECT version::text FROM kb_schema WHERE name = 'records'", {}, {}}, true, [&](void* raw) {
    auto* result = static_cast<PGresult*>(raw);
    if (PQntuples(result) == 1) version.assign(PQgetvalue(result, 0, 0), PQgetlength(result, 0, 0));
    return util::Status{};
  }));
  return version;
}

util::Status PostgresRecords::create_schema() {
  // A replica (re)starting while others write runs no DDL on a database that has the schema:
  // CREATE INDEX IF NOT EXISTS takes its table lock before it finds the index, and would queue
  // every writer behind the transactions in flight (a replica restarted during the kill -9 test
  // timed out there).
  auto existing = schema_version();
  if (!existing) return std::move(existing).error();
  if (existing->empty()) KB_TRY(create_missing_schema());
  else if (*existing != std::to_string(kRecordsSchemaVersion)) return schema_mismatch(*existing);
  return {};
}

util::Error PostgresRecords::schema_mismatch(const std::string& version) const {
  return util::Error(util::ErrorKind::config, "The records in PostgreSQL at " + display_url_ + " have schema version " +
                                                  version + "; this kernel-hub reads version " +
                                                  std::to_string(kRecordsSchemaVersion))
      .with_hint("run the kernel-hub that wrote them, or migrate them (docs/hub-scale.md)");
}

util::Status PostgresRecords::create_missing_schema() {
  auto held = lock("kernel-hub schema");  // replicas starting together create it once
  if (!held) return std::move(held).error();
  KB_TRY(run({"CREATE TABLE IF NOT EXISTS kb_records (path text PRIMARY KEY, data bytea NOT NULL)", {}, {}}, false));
  KB_TRY(run({"CREATE INDEX IF NOT EXISTS kb_records_path_prefix ON kb_records (path text_pattern_ops)", {}, {}},
             false));
  KB_TRY(run({"CREATE TABLE IF NOT EXISTS kb_schema (name text PRIMARY KEY, version integer NOT NULL)", {}, {}},
             false));
  KB_TRY(run({"INSERT INTO kb_schema (name, version) VALUES ('records', " + std::to_string(kRecordsSchemaVersion) +
                  ") ON CONFLICT (name) DO NOTHING",
              {}, {}},
             false));
  std::string version;
  KB_TRY(run({"SELECT version::text FROM kb_schema WHERE name = 'records'", {}, {}}, false, [&](void* raw) {
    auto* result = static_cast<PGresult*>(raw);
    if (PQntuples(result) == 1) version.assign(PQgetvalue(result, 0, 0), PQgetlength(result, 0, 0));
    return util::Status{};
  }));
  KB_TRY((*held)->release());
  if (version != std::to_string(kRecordsSchemaVersion)) return schema_mismatch(version);
  return {};
}

util::Result<std::optional<std::string>> PostgresRecords::read(const std::string& path) const {
  std::optional<std::string> out;
  KB_TRY(run({"SELECT data FROM kb_records WHERE path = $1", {path}, {}}, true, [&](void* raw) {
    auto* result = static_cast<PGresult*>(raw);
    if (PQntuples(result) == 1) out.emplace(PQgetvalue(result, 0, 0), PQgetlength(result, 0, 0));
    return util::Status{};
  }));
  return out;
}

util::Status PostgresRecords::write(const std::string& path, std::string_view data) {
  return run({"INSERT INTO kb_records (path, data) VALUES ($1, $2) ON CONFLICT (path) DO UPDATE SET data = EXCLUDED.data",
              {path}, data},
             true);
}

util::Result<bool> PostgresRecords::create(const std::string& path, std::string_view data) {
  bool created = false;
  KB_TRY(run({"INSERT INTO kb_records (path, data) VALUES ($1, $2) ON CONFLICT (path) DO NOTHING", {path}, data}, false,
             [&](void* raw) {
               created = std::string(PQcmdTuples(static_cast<PGresult*>(raw))) == "1";
               return util::Status{};
             }));
  return created;
}

util::Status PostgresRecords::append(const std::string& path, std::string_view data) {
  return run({"INSERT INTO kb_records (path, data) VALUES ($1, $2) "
              "ON CONFLICT (path) DO UPDATE SET data = kb_records.data || EXCLUDED.data",
              {path}, data},
             false);
}

util::Result<bool> PostgresRecords::exists(const std::string& path) const {
  bool found = false;
  KB_TRY(run({"SELECT 1 FROM kb_records WHERE path = $1", {path}, {}}, true, [&](void* raw) {
    found = PQntuples(static_cast<PGresult*>(raw)) > 0;
    return util::Status{};
  }));
  return found;
}

util::Result<std::vector<std::string>> PostgresRecords::list(const std::string& dir) const {
  std::vector<std::string> names;
  std::string prefix = dir.empty() ? "" : dir + "/";
  auto collect = [&](void* raw) {
    auto* result = static_cast<PGresult*>(raw);
    for (int row = 0; row < PQntuples(result); ++row) names.emplace_back(PQgetvalue(result, row, 0), PQgetlength(result, row, 0));
    return util::Status{};
  };
  if (prefix.empty()) {
    KB_TRY(run({"SELECT DISTINCT split_part(path, '/', 1) COLLATE \"C\" AS name FROM kb_records ORDER BY name", {}, {}},
               true, collect));
  } else {
    KB_TRY(run({"SELECT DISTINCT split_part(substr(path, $3::integer), '/', 1) COLLATE \"C\" AS name FROM kb_records "
                "WHERE path ~>=~ $1 AND path ~<~ $2 ORDER BY name",
                {prefix, prefix_end(prefix), std::to_string(prefix.size() + 1)}, {}},
               true, collect));
  }
  return names;
}

util::Status PostgresRecords::remove(const std::string& path) {
  return run({"DELETE FROM kb_records WHERE path = $1", {path}, {}}, true);
}

util::Status PostgresRecords::remove_tree(const std::string& dir) {
  if (dir.empty()) return run({"DELETE FROM kb_records", {}, {}}, true);
  std::string prefix = dir + "/";
  return run({"DELETE FROM kb_records WHERE path ~>=~ $1 AND path ~<~ $2", {prefix, prefix_end(prefix)}, {}}, true);
}

util::Status PostgresRecords::walk(const std::string& dir,
                                   const std::function<util::Status(const std::string& path)>& visit) const {
  std::vector<std::string> paths;
  auto collect = [&](void* raw) {
    auto* result = static_cast<PGresult*>(raw);
    for (int row = 0; row < PQntuples(result); ++row) paths.emplace_back(PQgetvalue(result, row, 0), PQgetlength(result, row, 0));
    return util::Status{};
  };
  if (dir.empty()) {
    KB_TRY(run({"SELECT path FROM kb_records ORDER BY path COLLATE \"C\"", {}, {}}, true, collect));
  } else {
    std::string prefix = dir + "/";
    KB_TRY(run({"SELECT path FROM kb_records WHERE path ~>=~ $1 AND path ~<~ $2 ORDER BY path COLLATE \"C\"",
                {prefix, prefix_end(prefix)}, {}},
               true, collect));
  }
  for (const auto& path : paths) KB_TRY(visit(path));
  return {};
}

util::Result<std::unique_ptr<RecordLock>> PostgresRecords::lock(const std::string& name) {
  auto& transactions = thread_transactions();
  auto it = transactions.find(this);
  if (it == transactions.end()) {
    auto connection = acquire();
    if (!connection) return std::move(connection).error();
    ResultPtr begun(PQexec(*connection, "BEGIN"), &PQclear);
    if (PQresultStatus(begun.get()) != PGRES_COMMAND_OK) {
      auto error = database_error(display_url_, *connection, begun.get(), "beginning a transaction");
      begun.reset();
      give_back(*connection);
      return error;
    }
    it = transactions.emplace(this, Transaction{*connection, 0, false}).first;
  }
  Transaction& transaction = it->second;
  ++transaction.depth;  // before run(): the statement goes through the transaction
  auto locked = run({"SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", {name}, {}}, false);
  if (!locked) {
    (void)finish(transaction);
    return util::Error(util::ErrorKind::io, "Cannot lock `" + name + "` in PostgreSQL at " + display_url_)
        .with_cause(locked.error().message);
  }
  return std::unique_ptr<RecordLock>(std::make_unique<PostgresLock>(this, &transaction));
}

util::Status PostgresRecords::finish(Transaction& transaction) {
  if (--transaction.depth > 0) return {};  // an inner lock: the outermost one commits
  PGconn* connection = transaction.connection;
  bool failed = transaction.failed;
  thread_transactions().erase(this);
  util::Status status;
  if (failed) {
    PQclear(PQexec(connection, "ROLLBACK"));
    status = util::Error(util::ErrorKind::io, "Nothing written under the lock was committed to PostgreSQL at " +
                                                  display_url_ + ": a statement failed");
  } else {
    ResultPtr committed(PQexec(connection, "COMMIT"), &PQclear);
    if (PQresultStatus(committed.get()) != PGRES_COMMAND_OK) {
      status = database_error(display_url_, connection, committed.get(), "committing");
    }
  }
  give_back(connection);
  return status;
}

}  // namespace kb::hub::storage
