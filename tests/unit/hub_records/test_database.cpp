// Record stores for the conformance tests (see test_database.h).
#include "test_database.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>

#include "hub/storage/directory_records.h"
#ifdef KB_HAVE_POSTGRES
#include <libpq-fe.h>

#include "hub/storage/postgres_records.h"
#endif

namespace kb::hub::storage::testing {

namespace {

class DirectoryUnderTest final : public RecordsUnderTest {
 public:
  DirectoryUnderTest() : records_(dir_.path()) {}
  RecordStore& store() override { return records_; }
  std::unique_ptr<RecordStore> another() override { return std::make_unique<DirectoryRecords>(dir_.path()); }

 private:
  util::TempDir dir_{"kb-records"};
  DirectoryRecords records_;
};

[[maybe_unused]] bool server_binaries_present() {
  if (const char* bin = std::getenv("KB_POSTGRES_BIN")) return std::filesystem::exists(std::string(bin) + "/initdb");
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
    if (std::filesystem::exists(entry.path() / "bin" / "initdb")) return true;
  }
  return false;
}

// Starts (or finds running) the tests' PostgreSQL and returns its URL, or "" with `skip` set.
[[maybe_unused]] std::string server_url(std::string& skip) {
  if (!server_binaries_present()) {
    skip = "PostgreSQL server binaries are absent (apt-get install postgresql-15; scripts/install-deps does)";
    return "";
  }
  std::string command = std::string(KB_POSTGRES_SCRIPT) + " start " + KB_POSTGRES_STATE_DIR + " 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string output;
  char buffer[512];
  while (pipe && std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
  int status = pipe ? ::pclose(pipe) : -1;
  const std::string marker = "export KB_HUB_DATABASE=";
  auto at = output.find(marker);
  if (status != 0 || at == std::string::npos) {
    skip.clear();  // binaries present: a failure to start is a failure, not a skip
    return "";
  }
  std::string url = output.substr(at + marker.size());
  return url.substr(0, url.find('\n'));
}

}  // namespace

std::unique_ptr<RecordsUnderTest> directory_records() { return std::make_unique<DirectoryUnderTest>(); }

#ifdef KB_HAVE_POSTGRES

bool execute_sql(const std::string& url, const std::string& sql) {
  PGconn* connection = PQconnectdb(url.c_str());
  bool ok = PQstatus(connection) == CONNECTION_OK;
  if (ok) {
    PGresult* result = PQexec(connection, sql.c_str());
    ok = PQresultStatus(result) == PGRES_COMMAND_OK || PQresultStatus(result) == PGRES_TUPLES_OK;
    PQclear(result);
  }
  PQfinish(connection);
  return ok;
}

TestDatabase::TestDatabase() {
  std::string base = server_url(skip_);
  if (base.empty()) {
    if (skip_.empty()) url_ = "";  // the caller fails on an empty url without a skip reason
    return;
  }
  static std::atomic<int> counter{0};
  name_ = "kb_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
  server_ = base.substr(0, base.rfind('/')) + "/postgres";
  if (!execute_sql(server_, "CREATE DATABASE " + name_)) return;
  url_ = base.substr(0, base.rfind('/')) + "/" + name_;
}

TestDatabase::~TestDatabase() {
  if (!url_.empty()) (void)execute_sql(server_, "DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
}

namespace {

class PostgresUnderTest final : public RecordsUnderTest {
 public:
  explicit PostgresUnderTest(std::unique_ptr<TestDatabase> database, std::unique_ptr<PostgresRecords> records)
      : database_(std::move(database)), records_(std::move(records)) {}
  ~PostgresUnderTest() override { records_.reset(); }
  RecordStore& store() override { return *records_; }
  std::unique_ptr<RecordStore> another() override {
    auto opened = PostgresRecords::open(database_->url(), 4);
    return opened ? std::move(*opened) : nullptr;
  }

 private:
  std::unique_ptr<TestDatabase> database_;
  std::unique_ptr<PostgresRecords> records_;
};

}  // namespace

std::unique_ptr<RecordsUnderTest> postgres_records(std::string& skip) {
  auto database = std::make_unique<TestDatabase>();
  if (database->url().empty()) {
    skip = database->skip();
    return nullptr;
  }
  auto records = PostgresRecords::open(database->url(), 8);
  if (!records) return nullptr;
  return std::make_unique<PostgresUnderTest>(std::move(database), std::move(*records));
}

#else

bool execute_sql(const std::string&, const std::string&) { return false; }
TestDatabase::TestDatabase() : skip_("kernel-hub was built without libpq (libpq-dev)") {}
TestDatabase::~TestDatabase() = default;
std::unique_ptr<RecordsUnderTest> postgres_records(std::string& skip) {
  skip = "kernel-hub was built without libpq (libpq-dev)";
  return nullptr;
}

#endif

}  // namespace kb::hub::storage::testing
