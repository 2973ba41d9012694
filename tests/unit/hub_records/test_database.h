// Record stores for the conformance tests: a directory, or a fresh database in the PostgreSQL that
// scripts/services/postgres runs for the tests (started on first use; ctest's cleanup stops it).
#pragma once

#include <memory>
#include <string>

#include "hub/storage/backend.h"
#include "util/fs.h"

namespace kb::hub::storage::testing {

// One store under test and a way to open a second store over the same records (a second process
// or replica).
class RecordsUnderTest {
 public:
  virtual ~RecordsUnderTest() = default;
  virtual RecordStore& store() = 0;
  virtual std::unique_ptr<RecordStore> another() = 0;
};

std::unique_ptr<RecordsUnderTest> directory_records();

// A fresh, empty database (dropped by the destructor); `skip` is set (and the store null) where
// PostgreSQL cannot be had: the reason to skip with.
class TestDatabase {
 public:
  TestDatabase();
  ~TestDatabase();
  const std::string& url() const { return url_; }
  const std::string& skip() const { return skip_; }

 private:
  std::string server_;  // URL of the server's maintenance database
  std::string name_;
  std::string url_;
  std::string skip_;
};

// The PostgreSQL back end over a TestDatabase; nullptr with `skip` set where it cannot be had.
std::unique_ptr<RecordsUnderTest> postgres_records(std::string& skip);

// Runs a SQL statement on `url` (administration in tests); false on failure.
bool execute_sql(const std::string& url, const std::string& sql);

}  // namespace kb::hub::storage::testing
