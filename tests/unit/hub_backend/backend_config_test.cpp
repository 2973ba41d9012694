// BackendConfig, check_backend_config and open_backend (src/hub/storage/backend.h).
#include <gtest/gtest.h>

#include "hub/storage/backend.h"
#include "util/fs.h"

namespace kb::hub::storage {
namespace {
namespace KB_UNITY_ID {

TEST(CheckBackendConfig, RefusesADatabaseWithoutAnObjectStore) {
  BackendConfig config{"/tmp/scratch", "postgresql://kb@db/kernel_hub", ""};
  auto checked = check_backend_config(config);
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.error().kind, util::ErrorKind::usage);
  EXPECT_EQ(checked.error().message, "A database was given without an object store");
  ASSERT_EQ(checked.error().hints.size(), 1u);
  EXPECT_NE(checked.error().hints[0].find("--object-store"), std::string::npos);
}

TEST(CheckBackendConfig, AcceptsAnObjectStoreWithoutADatabase) {
  BackendConfig config{"/tmp/hub", "", "s3://hub?endpoint=http://127.0.0.1:1"};
  EXPECT_TRUE(check_backend_config(config));
  EXPECT_FALSE(config.replicated());
  EXPECT_EQ(config.describe(), "directory `/tmp/hub` and object store `s3://hub?endpoint=http://127.0.0.1:1`");
}

TEST(BackendConfigDescribe, HidesTheDatabasePassword) {
  BackendConfig uri{"/r", "postgresql://kb:secret@db:5432/kernel_hub", "s3://hub?endpoint=http://s3"};
  EXPECT_EQ(uri.describe(), "PostgreSQL `postgresql://kb:***@db:5432/kernel_hub` and object store "
                            "`s3://hub?endpoint=http://s3`");
  BackendConfig keywords{"/r", "host=db password=secret dbname=kernel_hub", "s3://hub?endpoint=http://s3"};
  EXPECT_EQ(keywords.describe().find("secret"), std::string::npos);
  EXPECT_EQ((BackendConfig{"/srv/hub", "", ""}.describe()), "directory `/srv/hub`");
}

TEST(OpenBackend, DirectoryByDefault) {
  util::TempDir root("kb-backend");
  auto backend = open_backend(BackendConfig{root.path() / "hub", "", ""});
  ASSERT_TRUE(backend) << backend.error().message;
  EXPECT_FALSE(backend->records->shared());
  EXPECT_TRUE(std::filesystem::is_directory(root.path() / "hub"));
  EXPECT_FALSE(backend->blobs->presigned_get("objects/ab/abcd", std::chrono::seconds(60)));
}

#ifdef KB_HAVE_POSTGRES
TEST(OpenBackend, NamesTheDatabaseItCannotReach) {
  util::TempDir root("kb-backend");
  // Port 1 on loopback: nothing listens there.
  auto backend = open_backend(BackendConfig{root.path(), "postgresql://kb@127.0.0.1:1/kernel_hub",
                                            "s3://hub?endpoint=http://127.0.0.1:1"});
  ASSERT_FALSE(backend);
  EXPECT_NE(backend.error().message.find("postgresql://kb@127.0.0.1:1/kernel_hub"), std::string::npos)
      << backend.error().message;
}
#else
// A build without libpq (the portable one) refuses a database as a usage error, with a hint.
TEST(OpenBackend, WithoutPostgresADatabaseIsAUsageError) {
  util::TempDir root("kb-backend");
  auto backend = open_backend(BackendConfig{root.path(), "postgresql://kb@127.0.0.1:1/kernel_hub",
                                            "s3://hub?endpoint=http://127.0.0.1:1"});
  ASSERT_FALSE(backend);
  EXPECT_EQ(backend.error().kind, util::ErrorKind::usage);
  EXPECT_FALSE(backend.error().hints.empty());
}
#endif

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::storage
