// AWS Signature Version 4 for presigned S3 URLs (query-string authentication). Requests the Hub
// sends itself are signed by libcurl (CURLOPT_AWS_SIGV4); libcurl cannot presign a URL for a
// client to use later, so that part is here, kept to what a presigned GET needs:
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace kb::hub::storage::sigv4 {

// URI-encodes as SigV4 wants: unreserved characters (A-Z a-z 0-9 - _ . ~) stay, every other byte
// is %XX in upper case; '/' stays when `keep_slash` (object paths).
std::string uri_encode(std::string_view text, bool keep_slash);

// "20130524T000000Z" of a UTC instant.
std::string amz_date(std::chrono::system_clock::time_point when);

// The signature of a canonical request (hex): the string to sign from the scope
// <date>/<region>/<service>/aws4_request, HMAC-SHA256 with the derived signing key.
std::string signature(std::string_view secret_key, std::string_view amz_date, std::string_view region,
                      std::string_view service, std::string_view canonical_request);

struct PresignRequest {
  std::string method = "GET";
  std::string scheme = "https";
  std::string host;           // as the client sends it in Host (with ":port" unless the default)
  std::string path;           // absolute, already URI-encoded ("/bucket/objects/ab/abcd…")
  std::string region;
  std::string service = "s3";
  std::string access_key;
  std::string secret_key;
  std::string amz_date;       // when it was signed
  int64_t expires_seconds = 0;  // 1 … 604800
};

// The presigned URL: scheme://host/path?X-Amz-Algorithm=…&X-Amz-Signature=…. Only `host` is
// signed and the payload is UNSIGNED-PAYLOAD, so any Range header works with it.
std::string presign(const PresignRequest& request);

}  // namespace kb::hub::storage::sigv4
