// Choosing and opening a Hub's back end (backend.h, docs/hub-scale.md): the directory, or
// PostgreSQL records plus S3 blobs for replicas.
#include "hub/storage/backend.h"

#include <regex>
#include <system_error>

#include "hub/storage/directory_blobs.h"
#include "hub/storage/directory_records.h"
#include "hub/storage/s3_blobs.h"
#ifdef KB_HAVE_POSTGRES
#include "hub/storage/postgres_records.h"
#endif

namespace kb::hub::storage {
namespace {

constexpr const char* kDatabaseExample = "postgresql://kb@127.0.0.1:5432/kernel_hub";
constexpr const char* kObjectStoreExample = "s3://BUCKET?endpoint=http://127.0.0.1:8080&region=us-east-1";

// A database URL fit for messages: the password of a URI or of a key=value string replaced.
std::string without_password(const std::string& url) {
  static const std::regex uri_password(R"(^([a-z]+://[^:/@]*):[^@]*@)");
  static const std::regex key_password(R"((^|\s)password\s*=\s*('[^']*'|\S*))");
  std::string shown = std::regex_replace(url, uri_password, "$1:***@");
  return std::regex_replace(shown, key_password, "$1password=***");
}

}  // namespace

std::string BackendConfig::describe() const {
  if (database.empty() && object_store.empty()) return "directory `" + root.string() + "`";
  if (database.empty()) return "directory `" + root.string() + "` and object store `" + object_store + "`";
  return "PostgreSQL `" + without_password(database) + "` and object store `" + object_store + "`";
}

util::Status check_backend_config(const BackendConfig& config) {
  if (!config.database.empty() && config.object_store.empty()) {
    return util::Error(util::ErrorKind::usage, "A database was given without an object store")
        .with_hint(std::string("replicas keep records in PostgreSQL and blobs in an S3-compatible object store: "
                               "give both, e.g. --object-store '") + kObjectStoreExample +
                   "' (or KB_HUB_OBJECT_STORE); see docs/hub-scale.md");
  }
  if (config.root.empty()) {
    return util::Error(util::ErrorKind::usage, "No root directory was given");
  }
  return {};
}

util::Result<Backend> open_backend(const BackendConfig& config) {
  KB_TRY(check_backend_config(config));
  std::error_code ec;
  std::filesystem::create_directories(config.root, ec);
  if (ec) {
    return util::Error(util::ErrorKind::io, "Cannot create the hub root `" + config.root.string() + "`")
        .with_cause(ec.message());
  }
  Backend backend;
  backend.description = config.describe();
  if (config.object_store.empty()) {
    backend.records = std::make_unique<DirectoryRecords>(config.root);
    backend.blobs = std::make_unique<DirectoryBlobs>(config.root);
    return backend;
  }
  if (config.database.empty()) {
    // One Hub whose records stay in the directory and whose bodies and xorbs (and downloads) go to
    // the object store.
    backend.records = std::make_unique<DirectoryRecords>(config.root);
  } else {
#ifdef KB_HAVE_POSTGRES
    auto records = PostgresRecords::open(config.database, config.connections);
    if (!records) {
      return std::move(records).error().context("Cannot open the database of " + backend.description);
    }
    backend.records = std::move(records).value();
#else
    return util::Error(util::ErrorKind::usage,
                       "This build of kernel-hub has no PostgreSQL back end (it was built without libpq)")
        .with_hint("build kernel-hub where libpq is installed (apt-get install libpq-dev) to run replicas; "
                   "see docs/hub-scale.md");
#endif
  }
  auto blobs = S3Blobs::open(config.object_store, config.root / "tmp" / "staging");
  if (!blobs) {
    return std::move(blobs).error().context("Cannot open the object store of " + backend.description);
  }
  backend.blobs = std::move(blobs).value();
  return backend;
}

}  // namespace kb::hub::storage
