// The Hub's blobs in an S3-compatible object store (backend.h), for replicas: one object per blob,
// named by its key in one bucket, spoken over the S3 API with path-style URLs
// (<endpoint>/<bucket>/<key>). libcurl signs each request (CURLOPT_AWS_SIGV4); downloads leave the
// Hub through presigned GET URLs (sigv4.h) that expire. Credentials come from the environment
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) and never appear in a URL, a log line or an error.
// Connection failures and 5xx answers are retried with backoff. docs/hub-scale.md.
#pragma once

#include <string>

#include "hub/storage/backend.h"

namespace kb::hub::storage {

// s3://BUCKET?endpoint=http://127.0.0.1:PORT&region=us-east-1[&public_endpoint=URL], parsed.
struct S3Location {
  std::string bucket;
  std::string endpoint;  // scheme://host[:port], no trailing '/'
  std::string region = "us-east-1";
  // Where clients reach the store, for presigned URLs (default: `endpoint`). Its host name must
  // differ from the Hub's: huggingface_hub 1.x follows a redirect to the same host name (any
  // port) as if it stayed on the Hub, with a HEAD and the user's token.
  std::string public_endpoint;
};

util::Result<S3Location> parse_s3_url(const std::string& url);

struct S3Credentials {
  std::string access_key;
  std::string secret_key;
};

// From AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY; an error with a hint when either is missing.
util::Result<S3Credentials> s3_credentials_from_environment();

class S3Blobs final : public BlobStore {
 public:
  // `staging` is a local folder for uploads before put_file (created).
  S3Blobs(S3Location location, S3Credentials credentials, std::filesystem::path staging);
  // Parses `url`, reads the credentials from the environment and checks that the bucket answers.
  static util::Result<std::unique_ptr<S3Blobs>> open(const std::string& url, std::filesystem::path staging);

  util::Status put_file(const std::string& key, const std::filesystem::path& file) override;
  util::Status put(const std::string& key, std::string_view data) override;
  util::Result<std::optional<uint64_t>> size(const std::string& key) const override;
  util::Result<std::string> read(const std::string& key, uint64_t offset, uint64_t length) const override;
  util::Status remove(const std::string& key) override;
  util::Status walk(const std::string& prefix,
                    const std::function<util::Status(const std::string& key)>& visit) const override;
  std::optional<std::filesystem::path> local_path(const std::string&) const override { return std::nullopt; }
  std::optional<std::string> presigned_get(const std::string& key, std::chrono::seconds ttl) const override;
  const std::filesystem::path& staging_dir() const override { return staging_; }

  // Whether the bucket exists and the credentials are accepted (HEAD on the bucket).
  util::Status check() const;
  const S3Location& location() const { return location_; }
  // Keys a listing page asks for (S3's default and maximum is 1000); tests make it small to
  // cover continuation.
  void set_list_page_size(int keys) { list_page_size_ = keys; }

 private:
  struct Answer;
  struct Request;
  util::Result<Answer> perform(const Request& request) const;

  S3Location location_;
  S3Credentials credentials_;
  std::filesystem::path staging_;
  int list_page_size_ = 1000;
};

}  // namespace kb::hub::storage
