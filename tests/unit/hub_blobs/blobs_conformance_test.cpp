// One behaviour for every BlobStore (backend.h): the directory back end and an S3-compatible
// object store (a real OpenStack Swift started by scripts/services/swift), plus what only the
// object store does: presigned URLs that work with Range and refuse expired or altered requests.
#include <curl/curl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <thread>

#include "hub/storage/directory_blobs.h"
#include "hub/storage/s3_blobs.h"
#include "util/fs.h"

namespace kb::hub::storage {
namespace {
namespace KB_UNITY_ID {

namespace fs = std::filesystem;

// The export lines of the tests' Swift (started once for all test processes), or "" on failure.
std::string swift_exports() {
  static const std::string exports = [] {
    std::string command = std::string(KB_SWIFT_SCRIPT) + " start " + KB_SWIFT_STATE_DIR + " 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    std::string output;
    char buffer[512];
    while (pipe && std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
    int status = pipe ? ::pclose(pipe) : -1;
    if (status != 0) ADD_FAILURE() << "scripts/services/swift start failed:\n" << output;
    return status == 0 ? output : std::string();
  }();
  return exports;
}

std::string exported(const std::string& exports, const std::string& name) {
  auto at = exports.find("export " + name + "='");
  if (at == std::string::npos) return "";
  at += name.size() + 9;
  return exports.substr(at, exports.find('\'', at) - at);
}

std::unique_ptr<S3Blobs> swift_blobs(const fs::path& staging, std::string secret = "") {
  std::string exports = swift_exports();
  if (exports.empty()) return nullptr;
  auto location = parse_s3_url(exported(exports, "KB_HUB_OBJECT_STORE"));
  if (!location) return nullptr;
  if (secret.empty()) secret = exported(exports, "AWS_SECRET_ACCESS_KEY");
  return std::make_unique<S3Blobs>(*location, S3Credentials{exported(exports, "AWS_ACCESS_KEY_ID"), secret}, staging);
}

struct HttpAnswer {
  long status = 0;
  std::string body;
};

HttpAnswer http_get(const std::string& url, const std::string& range = "") {
  HttpAnswer answer;
  CURL* curl = curl_easy_init();
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, +[](char* data, size_t size, size_t count, void* out) {
    static_cast<std::string*>(out)->append(data, size * count);
    return size * count;
  });
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer.body);
  if (!range.empty()) curl_easy_setopt(curl, CURLOPT_RANGE, range.c_str());
  if (curl_easy_perform(curl) == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
  curl_easy_cleanup(curl);
  return answer;
}

class BlobsConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "directory") {
      blobs_ = std::make_unique<DirectoryBlobs>(dir_.path());
    } else {
      blobs_ = swift_blobs(dir_.path() / "staging");
      ASSERT_NE(blobs_, nullptr);
    }
    // Test processes share the bucket: each test writes under a prefix of its own.
    static std::atomic<int> counter{0};
    prefix_ = "t" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "/";
  }
  std::string key(const std::string& name) const { return prefix_ + name; }

  util::TempDir dir_{"kb-blobs"};
  std::unique_ptr<BlobStore> blobs_;
  std::string prefix_;
};

TEST_P(BlobsConformance, PutThenReadRangesClampedToTheBlob) {
  {
    auto put = blobs_->put(key("objects/ab/one"), "0123456789");
    ASSERT_TRUE(put.ok()) << put.error().message << " / " << (put.error().causes.empty() ? "" : put.error().causes[0]);
  }
  auto size = blobs_->size(key("objects/ab/one"));
  ASSERT_TRUE(size.ok()) << size.error().message;
  EXPECT_EQ(size->value_or(0), 10u);
  EXPECT_EQ(*blobs_->read(key("objects/ab/one"), 0, 10), "0123456789");
  EXPECT_EQ(*blobs_->read(key("objects/ab/one"), 3, 4), "3456");
  EXPECT_EQ(*blobs_->read(key("objects/ab/one"), 8, 100), "89");
  EXPECT_EQ(*blobs_->read(key("objects/ab/one"), 10, 5), "");
  EXPECT_EQ(*blobs_->read(key("objects/ab/one"), 4, 0), "");
}

TEST_P(BlobsConformance, PutFileConsumesTheStagedFile) {
  fs::path staged = blobs_->staging_dir() / ("staged-" + std::to_string(::getpid()));
  std::string content(3 * 1024 * 1024 + 7, '\0');
  for (size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>(i * 31 % 251);
  ASSERT_TRUE(util::write_file_atomic(staged, content).ok());
  auto put = blobs_->put_file(key("xet/xorbs/cd/big"), staged);
  ASSERT_TRUE(put.ok()) << put.error().message;
  EXPECT_FALSE(fs::exists(staged));
  EXPECT_EQ(blobs_->size(key("xet/xorbs/cd/big"))->value_or(0), content.size());
  EXPECT_EQ(*blobs_->read(key("xet/xorbs/cd/big"), 1024 * 1024 - 3, 9), content.substr(1024 * 1024 - 3, 9));
}

TEST_P(BlobsConformance, AbsentBlobHasNoSizeAndRemovingItIsANoOp) {
  auto size = blobs_->size(key("objects/00/absent"));
  ASSERT_TRUE(size.ok()) << size.error().message;
  EXPECT_FALSE(size->has_value());
  EXPECT_TRUE(blobs_->remove(key("objects/00/absent")).ok());
  EXPECT_FALSE(blobs_->read(key("objects/00/absent"), 0, 1).ok());
}

TEST_P(BlobsConformance, RemoveDeletesTheBlob) {
  ASSERT_TRUE(blobs_->put(key("objects/ab/gone"), "x").ok());
  ASSERT_TRUE(blobs_->remove(key("objects/ab/gone")).ok());
  EXPECT_FALSE(blobs_->size(key("objects/ab/gone"))->has_value());
}

TEST_P(BlobsConformance, WalkVisitsEveryKeyUnderThePrefixInOrder) {
  std::vector<std::string> written;
  for (int i = 0; i < 7; ++i) {
    std::string name = key("objects/" + std::string(i < 4 ? "aa" : "bb") + "/k" + std::to_string(i));
    ASSERT_TRUE(blobs_->put(name, "v").ok());
    written.push_back(name);
  }
  ASSERT_TRUE(blobs_->put(key("xet/xorbs/aa/x"), "v").ok());
  if (auto* s3 = dynamic_cast<S3Blobs*>(blobs_.get())) s3->set_list_page_size(3);  // continuation
  std::vector<std::string> seen;
  auto walked = blobs_->walk(key("objects/"), [&](const std::string& k) {
    seen.push_back(k);
    return util::Status();
  });
  ASSERT_TRUE(walked.ok()) << walked.error().message;
  EXPECT_EQ(seen, written);
  seen.clear();
  ASSERT_TRUE(blobs_->walk(key("objects/b"), [&](const std::string& k) {
    seen.push_back(k);
    return util::Status();
  }).ok());
  EXPECT_EQ(seen, std::vector<std::string>(written.begin() + 4, written.end()));
}

INSTANTIATE_TEST_SUITE_P(Stores, BlobsConformance, ::testing::Values("directory", "swift"),
                         [](const auto& param_info) { return param_info.param; });

TEST(DirectoryBlobs, KeepsTheHubRootLayoutAndServesLocalFiles) {
  util::TempDir dir("kb-blobs");
  DirectoryBlobs blobs(dir.path());
  ASSERT_TRUE(blobs.put("objects/ab/abcdef", "body").ok());
  EXPECT_EQ(*util::read_file(dir.path() / "objects/ab/abcdef"), "body");
  EXPECT_EQ(blobs.local_path("objects/ab/abcdef"), dir.path() / "objects/ab/abcdef");
  EXPECT_FALSE(blobs.presigned_get("objects/ab/abcdef", std::chrono::seconds(60)).has_value());
  EXPECT_EQ(blobs.staging_dir(), dir.path() / "tmp");
  // A xorb's .index is a record beside its xorb, not a blob.
  ASSERT_TRUE(util::write_file_atomic(dir.path() / "objects/ab/abcdef.index", "record").ok());
  std::vector<std::string> seen;
  ASSERT_TRUE(blobs.walk("", [&](const std::string& k) {
    seen.push_back(k);
    return util::Status();
  }).ok());
  EXPECT_EQ(seen, std::vector<std::string>{"objects/ab/abcdef"});
}

TEST(S3Blobs, PresignedUrlServesRangesWithoutOtherCredentials) {
  util::TempDir dir("kb-blobs");
  auto blobs = swift_blobs(dir.path());
  ASSERT_NE(blobs, nullptr);
  std::string k = "t" + std::to_string(::getpid()) + "-presign/objects/ab/file";
  ASSERT_TRUE(blobs->put(k, "presigned content").ok());
  auto url = blobs->presigned_get(k, std::chrono::seconds(60));
  ASSERT_TRUE(url.has_value());
  EXPECT_EQ(url->find("kb-test-secret"), std::string::npos);
  auto whole = http_get(*url);
  EXPECT_EQ(whole.status, 200);
  EXPECT_EQ(whole.body, "presigned content");
  auto part = http_get(*url, "3-8");
  EXPECT_EQ(part.status, 206);
  EXPECT_EQ(part.body, "signed");
  // Without a signature the object is private.
  auto unsigned_get = http_get(url->substr(0, url->find('?')));
  EXPECT_GE(unsigned_get.status, 400);
  EXPECT_EQ(unsigned_get.body.find("presigned content"), std::string::npos);
}

TEST(S3Blobs, PresignedUrlIsRefusedWhenTamperedOrExpired) {
  util::TempDir dir("kb-blobs");
  auto blobs = swift_blobs(dir.path());
  ASSERT_NE(blobs, nullptr);
  std::string base = "t" + std::to_string(::getpid()) + "-tamper/objects/ab/";
  ASSERT_TRUE(blobs->put(base + "private", "secret bytes").ok());
  ASSERT_TRUE(blobs->put(base + "other", "other bytes").ok());
  std::string url = *blobs->presigned_get(base + "private", std::chrono::seconds(60));
  // Another object with the same signature.
  std::string other = url;
  other.replace(other.find("/private?"), 9, "/other?");
  EXPECT_EQ(http_get(other).status, 403);
  // A longer lifetime than was signed.
  std::string longer = url;
  longer.replace(longer.find("X-Amz-Expires=60"), 16, "X-Amz-Expires=99");
  EXPECT_EQ(http_get(longer).status, 403);
  // A changed signature.
  std::string forged = url;
  forged.back() = forged.back() == '0' ? '1' : '0';
  EXPECT_EQ(http_get(forged).status, 403);
  // Expired.
  std::string short_lived = *blobs->presigned_get(base + "private", std::chrono::seconds(1));
  EXPECT_EQ(http_get(short_lived).status, 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  auto expired = http_get(short_lived);
  EXPECT_EQ(expired.status, 403);
  EXPECT_EQ(expired.body.find("secret bytes"), std::string::npos);
}

TEST(S3Blobs, WrongSecretIsAPermissionErrorWithAHint) {
  util::TempDir dir("kb-blobs");
  auto blobs = swift_blobs(dir.path(), "not-the-secret");
  ASSERT_NE(blobs, nullptr);
  auto checked = blobs->check();
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.error().kind, util::ErrorKind::permission);
  ASSERT_FALSE(checked.error().hints.empty());
  EXPECT_NE(checked.error().hints[0].find("AWS_SECRET_ACCESS_KEY"), std::string::npos);
  for (const auto& cause : checked.error().causes) EXPECT_EQ(cause.find("not-the-secret"), std::string::npos);
}

TEST(S3Blobs, UnreachableStoreSaysWhereItLooked) {
  util::TempDir dir("kb-blobs");
  S3Blobs blobs(*parse_s3_url("s3://b?endpoint=http://127.0.0.1:9&region=us-east-1"), S3Credentials{"a", "s"},
                dir.path());
  auto size = blobs.size("objects/ab/x");
  ASSERT_FALSE(size.ok());
  EXPECT_EQ(size.error().kind, util::ErrorKind::network);
  EXPECT_EQ(size.error().message, "Cannot reach the object store at http://127.0.0.1:9");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::storage
