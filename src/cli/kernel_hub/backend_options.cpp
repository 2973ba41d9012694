// --root, --database, --object-store (backend_options.h).
#include "cli/kernel_hub/backend_options.h"

namespace kb::cli {

hub::storage::BackendConfig BackendOptions::config() const {
  hub::storage::BackendConfig config;
  config.root = root;
  config.database = database;
  config.object_store = object_store;
  return config;
}

void add_backend_options(CLI::App& app, BackendOptions& options, const std::string& root_help) {
  app.add_option("--root", options.root, root_help)->required()->type_name("DIR");
  app.add_option("--database", options.database,
                 "PostgreSQL database of the records (a libpq URI, e.g. postgresql://kb@db:5432/kernel_hub), "
                 "with --object-store: the Hub's state is then shared by replicas (docs/hub-scale.md)")
      ->type_name("URI")
      ->envname("KB_HUB_DATABASE");
  app.add_option("--object-store", options.object_store,
                 "S3-compatible bucket of the blobs (file bodies, xorbs; downloads are redirected there with "
                 "presigned URLs), s3://BUCKET?endpoint=URL&region=REGION[&public_endpoint=URL]; alone, the "
                 "records stay under --root; credentials only from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
      ->type_name("URL")
      ->envname("KB_HUB_OBJECT_STORE");
}

}  // namespace kb::cli
