// SigV4 presigning against the examples the AWS documentation publishes (sigv4.h).
#include "hub/storage/sigv4.h"

#include <gtest/gtest.h>

#include "hub/storage/s3_blobs.h"

namespace kb::hub::storage {
namespace {
namespace KB_UNITY_ID {

constexpr const char* kAccessKey = "AKIAIOSFODNN7EXAMPLE";
constexpr const char* kSecretKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

// "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)", the example
// presigned URL of examplebucket/test.txt, 24 May 2013, valid for 86400 s.
TEST(Presign, ReproducesTheDocumentedPresignedUrl) {
  sigv4::PresignRequest request;
  request.host = "examplebucket.s3.amazonaws.com";
  request.path = "/test.txt";
  request.region = "us-east-1";
  request.access_key = kAccessKey;
  request.secret_key = kSecretKey;
  request.amz_date = "20130524T000000Z";
  request.expires_seconds = 86400;
  EXPECT_EQ(sigv4::presign(request),
            "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
            "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
            "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
            "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
}

// "Authenticating Requests: Using the Authorization Header", Example: GET Object (first 10 bytes
// of test.txt): the same key derivation and string to sign as presigning.
TEST(Signature, ReproducesTheDocumentedGetObjectSignature) {
  std::string canonical =
      "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
      "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
      "x-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n"
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  EXPECT_EQ(sigv4::signature(kSecretKey, "20130524T000000Z", "us-east-1", "s3", canonical),
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(UriEncode, KeepsUnreservedAndSlashesOfPaths) {
  EXPECT_EQ(sigv4::uri_encode("objects/ab/x y~z", true), "objects/ab/x%20y~z");
  EXPECT_EQ(sigv4::uri_encode("a/b:c=d", false), "a%2Fb%3Ac%3Dd");
}

TEST(AmzDate, IsUtcBasicFormat) {
  EXPECT_EQ(sigv4::amz_date(std::chrono::system_clock::from_time_t(1369353600)), "20130524T000000Z");
}

TEST(ParseS3Url, ReadsBucketEndpointAndRegion) {
  auto location = parse_s3_url("s3://kernel-hub?endpoint=http://127.0.0.1:8080/&region=eu-west-1");
  ASSERT_TRUE(location.ok()) << location.error().message;
  EXPECT_EQ(location->bucket, "kernel-hub");
  EXPECT_EQ(location->endpoint, "http://127.0.0.1:8080");
  EXPECT_EQ(location->region, "eu-west-1");
  EXPECT_EQ(location->public_endpoint, "http://127.0.0.1:8080");
  auto public_one = parse_s3_url("s3://b?endpoint=http://10.0.0.5:80&public_endpoint=https://blobs.example/");
  ASSERT_TRUE(public_one.ok());
  EXPECT_EQ(public_one->public_endpoint, "https://blobs.example");
}

TEST(ParseS3Url, RefusesWhatItCannotUse) {
  EXPECT_FALSE(parse_s3_url("http://bucket").ok());
  EXPECT_FALSE(parse_s3_url("s3://?endpoint=http://h").ok());
  EXPECT_FALSE(parse_s3_url("s3://b?endpoint=ftp://h").ok());
  EXPECT_FALSE(parse_s3_url("s3://b?endpoint=http://h/path").ok());
  auto unknown = parse_s3_url("s3://b?endpoint=http://h&secret=x");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown parameter `secret`"), std::string::npos);
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::storage
