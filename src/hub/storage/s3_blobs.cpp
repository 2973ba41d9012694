// Blobs in an S3-compatible object store (see s3_blobs.h).
#include "hub/storage/s3_blobs.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "hub/storage/sigv4.h"
#include "util/hash.h"

namespace kb::hub::storage {

namespace fs = std::filesystem;

namespace {

constexpr int kAttempts = 5;  // a failed connection or a 5xx is retried after 0.1, 0.2, 0.4, 0.8 s
constexpr const char* kEmptySha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

std::string percent_decode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// The text of the first <tag>…</tag> at or after `from`, entities decoded; `from` moves past it.
std::optional<std::string> xml_element(const std::string& xml, const std::string& tag, size_t& from) {
  size_t open = xml.find("<" + tag + ">", from);
  if (open == std::string::npos) return std::nullopt;
  size_t start = open + tag.size() + 2;
  size_t close = xml.find("</" + tag + ">", start);
  if (close == std::string::npos) return std::nullopt;
  from = close + tag.size() + 3;
  std::string text = xml.substr(start, close - start);
  static const std::pair<const char*, char> kEntities[] = {
      {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}, {"&amp;", '&'}};
  for (const auto& [entity, character] : kEntities) {
    for (size_t at = text.find(entity); at != std::string::npos; at = text.find(entity, at + 1)) {
      text.replace(at, std::string_view(entity).size(), 1, character);
    }
  }
  return text;
}

std::string xml_first(const std::string& xml, const std::string& tag) {
  size_t from = 0;
  return xml_element(xml, tag, from).value_or("");
}

// One easy handle per thread, reset between requests: connections to the store are kept alive.
struct ThreadHandle {
  CURL* curl = curl_easy_init();
  ~ThreadHandle() { curl_easy_cleanup(curl); }
};

CURL* thread_handle() {
  thread_local ThreadHandle handle;
  curl_easy_reset(handle.curl);
  return handle.curl;
}

size_t append_body(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// What an upload reads from: a file or bytes in memory.
struct UploadSource {
  std::FILE* file = nullptr;
  std::string_view data;
  size_t position = 0;
};

size_t read_upload(char* buffer, size_t size, size_t count, void* source_pointer) {
  auto* source = static_cast<UploadSource*>(source_pointer);
  if (source->file != nullptr) return std::fread(buffer, 1, size * count, source->file);
  size_t n = std::min(size * count, source->data.size() - source->position);
  std::memcpy(buffer, source->data.data() + source->position, n);
  source->position += n;
  return n;
}

bool retryable(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_COULDNT_RESOLVE_HOST:
      return true;
    default:
      return false;
  }
}

util::Result<std::string> file_sha256(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return util::Error(util::ErrorKind::io, "Cannot read `" + file.string() + "`");
  util::Hasher hasher(util::HashAlgorithm::sha256);
  std::string buffer(1 << 20, '\0');
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    hasher.update(std::string_view(buffer.data(), static_cast<size_t>(in.gcount())));
  }
  return util::to_hex(hasher.finish());
}

}  // namespace

struct S3Blobs::Request {
  const char* method = "GET";
  std::string key;    // "" for the bucket itself
  std::string query;  // canonical: names sorted, values sigv4::uri_encode'd
  std::vector<std::string> headers;
  std::optional<fs::path> upload_file;
  std::optional<std::string_view> upload_data;
  std::string payload_sha256 = kEmptySha256;
};

struct S3Blobs::Answer {
  long status = 0;
  std::string body;
  int64_t content_length = -1;
};

util::Result<S3Location> parse_s3_url(const std::string& url) {
  auto invalid = [&](const std::string& why) {
    return util::Error(util::ErrorKind::usage, "Invalid object store URL `" + url + "`: " + why)
        .with_hint("the form is s3://BUCKET?endpoint=http://HOST:PORT&region=REGION");
  };
  if (url.rfind("s3://", 0) != 0) return invalid("it does not start with s3://");
  std::string rest = url.substr(5);
  size_t question = rest.find('?');
  S3Location location;
  location.bucket = rest.substr(0, question);
  if (location.bucket.empty() || location.bucket.find('/') != std::string::npos) return invalid("no bucket name");
  std::string query = question == std::string::npos ? "" : rest.substr(question + 1);
  size_t start = 0;
  while (start < query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string::npos) end = query.size();
    std::string pair = query.substr(start, end - start);
    size_t equals = pair.find('=');
    std::string name = pair.substr(0, equals);
    std::string value = equals == std::string::npos ? "" : percent_decode(pair.substr(equals + 1));
    if (name == "endpoint") {
      location.endpoint = value;
    } else if (name == "region") {
      location.region = value;
    } else if (name == "public_endpoint") {
      location.public_endpoint = value;
    } else if (!name.empty()) {
      return invalid("unknown parameter `" + name + "`");
    }
    start = end + 1;
  }
  if (location.public_endpoint.empty()) location.public_endpoint = location.endpoint;
  for (auto [name, endpoint] : {std::pair<const char*, std::string*>{"endpoint", &location.endpoint},
                                {"public_endpoint", &location.public_endpoint}}) {
    while (!endpoint->empty() && endpoint->back() == '/') endpoint->pop_back();
    if (endpoint->rfind("http://", 0) != 0 && endpoint->rfind("https://", 0) != 0) {
      return invalid("`" + std::string(name) + "` must be an http:// or https:// URL");
    }
    if (endpoint->find('/', endpoint->find("//") + 2) != std::string::npos) {
      return invalid("`" + std::string(name) + "` must be scheme://host[:port] without a path");
    }
  }
  if (location.region.empty()) return invalid("empty `region`");
  return location;
}

util::Result<S3Credentials> s3_credentials_from_environment() {
  const char* access = std::getenv("AWS_ACCESS_KEY_ID");
  const char* secret = std::getenv("AWS_SECRET_ACCESS_KEY");
  if (access == nullptr || secret == nullptr || *access == '\0' || *secret == '\0') {
    return util::Error(util::ErrorKind::usage, "No credentials for the object store")
        .with_hint("set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment of kernel-hub");
  }
  return S3Credentials{access, secret};
}

S3Blobs::S3Blobs(S3Location location, S3Credentials credentials, fs::path staging)
    : location_(std::move(location)), credentials_(std::move(credentials)), staging_(std::move(staging)) {
  std::error_code ec;
  fs::create_directories(staging_, ec);
}

util::Result<std::unique_ptr<S3Blobs>> S3Blobs::open(const std::string& url, fs::path staging) {
  KB_TRY_ASSIGN(S3Location location, parse_s3_url(url));
  KB_TRY_ASSIGN(S3Credentials credentials, s3_credentials_from_environment());
  auto blobs = std::make_unique<S3Blobs>(std::move(location), std::move(credentials), std::move(staging));
  KB_TRY(blobs->check());
  return blobs;
}

util::Result<S3Blobs::Answer> S3Blobs::perform(const Request& request) const {
  std::string url = location_.endpoint + "/" + location_.bucket +
                    (request.key.empty() ? "" : "/" + sigv4::uri_encode(request.key, true)) +
                    (request.query.empty() ? "" : "?" + request.query);
  std::string what = std::string(request.method) + " " +
                     (request.key.empty() ? "bucket `" + location_.bucket + "`" : "`" + request.key + "`");
  std::string sigv4_scope = "aws:amz:" + location_.region + ":s3";
  CURLcode code = CURLE_OK;
  Answer answer;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100 << (attempt - 1)));
    CURL* curl = thread_handle();
    answer = Answer{};
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, sigv4_scope.c_str());
    curl_easy_setopt(curl, CURLOPT_USERNAME, credentials_.access_key.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, credentials_.secret_key.c_str());
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    // A stalled transfer (no byte for 30 s) fails and is retried; a slow one is not cut short.
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 30L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer.body);
    curl_slist* headers = nullptr;
    std::string payload = "x-amz-content-sha256: " + request.payload_sha256;
    headers = curl_slist_append(headers, payload.c_str());
    for (const auto& header : request.headers) headers = curl_slist_append(headers, header.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    UploadSource source;
    if (request.upload_file || request.upload_data) {
      if (request.upload_file) {
        source.file = std::fopen(request.upload_file->c_str(), "rb");
        if (source.file == nullptr) {
          curl_slist_free_all(headers);
          return util::Error(util::ErrorKind::io, "Cannot read `" + request.upload_file->string() + "`");
        }
        std::error_code ec;
        curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(fs::file_size(*request.upload_file, ec)));
      } else {
        source.data = *request.upload_data;
        curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(source.data.size()));
      }
      curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
      curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_upload);
      curl_easy_setopt(curl, CURLOPT_READDATA, &source);
    } else if (std::string_view(request.method) == "HEAD") {
      curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    } else if (std::string_view(request.method) != "GET") {
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method);
    }
    code = curl_easy_perform(curl);
    if (source.file != nullptr) std::fclose(source.file);
    curl_slist_free_all(headers);
    if (code == CURLE_OK) {
      curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
      curl_off_t length = -1;
      curl_easy_getinfo(curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
      answer.content_length = length;
      if (answer.status < 500) return answer;
    } else if (!retryable(code)) {
      break;
    }
  }
  if (code != CURLE_OK) {
    return util::Error(util::ErrorKind::network, "Cannot reach the object store at " + location_.endpoint)
        .with_cause(what + ": " + curl_easy_strerror(code))
        .with_hint("is it running? KB_HUB_OBJECT_STORE (or --object-store) names its endpoint");
  }
  return util::Error(util::ErrorKind::network,
                     "The object store at " + location_.endpoint + " failed " + std::to_string(kAttempts) + " times")
      .with_cause(what + ": HTTP " + std::to_string(answer.status) + " " + xml_first(answer.body, "Code"));
}

namespace {

// An answer the caller did not expect, as an error: refused credentials, a missing bucket, …
util::Error store_error(const S3Location& location, const std::string& what, long status, const std::string& body) {
  std::string code = xml_first(body, "Code");
  std::string message = xml_first(body, "Message");
  util::Error error(status == 403 ? util::ErrorKind::permission
                    : status == 404 ? util::ErrorKind::not_found
                                    : util::ErrorKind::network,
                    "The object store at " + location.endpoint + " refused " + what);
  error.status = static_cast<int>(status);
  error.causes.push_back("HTTP " + std::to_string(status) + (code.empty() ? "" : " " + code) +
                          (message.empty() ? "" : ": " + message));
  if (status == 403) {
    error.hints.push_back("check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and the region (`" + location.region + "`)");
  } else if (code == "NoSuchBucket" || (status == 404 && what.find("bucket") != std::string::npos)) {
    error.hints.push_back("create the bucket `" + location.bucket + "` first");
  }
  return error;
}

}  // namespace

util::Status S3Blobs::check() const {
  Request request;
  request.method = "HEAD";
  KB_TRY_ASSIGN(Answer answer, perform(request));
  if (answer.status != 200) return store_error(location_, "HEAD on bucket `" + location_.bucket + "`", answer.status, "");
  return {};
}

util::Status S3Blobs::put_file(const std::string& key, const fs::path& file) {
  Request request;
  request.method = "PUT";
  request.key = key;
  request.upload_file = file;
  KB_TRY_ASSIGN(request.payload_sha256, file_sha256(file));
  KB_TRY_ASSIGN(Answer answer, perform(request));
  if (answer.status != 200) return store_error(location_, "PUT `" + key + "`", answer.status, answer.body);
  // Uploaded: the staged file is consumed, as DirectoryBlobs' rename consumes it.
  std::error_code ec;
  fs::remove(file, ec);
  return {};
}

util::Status S3Blobs::put(const std::string& key, std::string_view data) {
  Request request;
  request.method = "PUT";
  request.key = key;
  request.upload_data = data;
  request.payload_sha256 = util::sha256_hex(data);
  KB_TRY_ASSIGN(Answer answer, perform(request));
  if (answer.status != 200) return store_error(location_, "PUT `" + key + "`", answer.status, answer.body);
  return {};
}

util::Result<std::optional<uint64_t>> S3Blobs::size(const std::string& key) const {
  Request request;
  request.method = "HEAD";
  request.key = key;
  KB_TRY_ASSIGN(Answer answer, perform(request));
  if (answer.status == 404) return std::optional<uint64_t>();
  if (answer.status != 200 || answer.content_length < 0) {
    return store_error(location_, "HEAD `" + key + "`", answer.status, answer.body);
  }
  return std::optional<uint64_t>(static_cast<uint64_t>(answer.content_length));
}

util::Result<std::string> S3Blobs::read(const std::string& key, uint64_t offset, uint64_t length) const {
  if (length == 0) return std::string();
  Request request;
  request.key = key;
  request.headers.push_back("Range: bytes=" + std::to_string(offset) + "-" + std::to_string(offset + length - 1));
  KB_TRY_ASSIGN(Answer answer, perform(request));
  if (answer.status == 416) return std::string();  // at or past the end: clamped to nothing
  if (answer.status == 404) return util::Error(util::ErrorKind::not_found, "No blob `" + key + "`");
  if (answer.status == 200) {
    // A store that ignores Range sends the whole object.
    return offset >= answer.body.size() ? std::string() : answer.body.substr(offset, length);
  }
  if (answer.status != 206) return store_error(location_, "GET `" + key + "`", answer.status, answer.body);
  return std::move(answer.body);
}

util::Status S3Blobs::remove(const std::string& key) {
  Request request;
  request.method = "DELETE";
  request.key = key;
  KB_TRY_ASSIGN(Answer answer, perform(request));
  if (answer.status != 204 && answer.status != 200 && answer.status != 404) {
    return store_error(location_, "DELETE `" + key + "`", answer.status, answer.body);
  }
  return {};
}

util::Status S3Blobs::walk(const std::string& prefix,
                           const std::function<util::Status(const std::string& key)>& visit) const {
  std::string token;
  while (true) {
    Request request;
    // ListObjectsV2; parameters in canonical (sorted) order, which libcurl signs as given.
    request.query = (token.empty() ? "" : "continuation-token=" + sigv4::uri_encode(token, false) + "&") +
                    "list-type=2&max-keys=" + std::to_string(list_page_size_) + "&prefix=" + sigv4::uri_encode(prefix, false);
    KB_TRY_ASSIGN(Answer answer, perform(request));
    if (answer.status != 200) return store_error(location_, "listing `" + prefix + "`", answer.status, answer.body);
    size_t from = 0;
    // <Key> appears only in the listing's <Contents> elements.
    while (auto key = xml_element(answer.body, "Key", from)) KB_TRY(visit(*key));
    if (xml_first(answer.body, "IsTruncated") != "true") return {};
    token = xml_first(answer.body, "NextContinuationToken");
    if (token.empty()) {
      return util::Error(util::ErrorKind::invalid, "The object store at " + location_.endpoint +
                                                       " truncated a listing without a continuation token");
    }
  }
}

std::optional<std::string> S3Blobs::presigned_get(const std::string& key, std::chrono::seconds ttl) const {
  sigv4::PresignRequest request;
  const std::string& endpoint = location_.public_endpoint.empty() ? location_.endpoint : location_.public_endpoint;
  size_t scheme_end = endpoint.find("://");
  request.scheme = endpoint.substr(0, scheme_end);
  request.host = endpoint.substr(scheme_end + 3);
  request.path = "/" + sigv4::uri_encode(location_.bucket, false) + "/" + sigv4::uri_encode(key, true);
  request.region = location_.region;
  request.access_key = credentials_.access_key;
  request.secret_key = credentials_.secret_key;
  request.amz_date = sigv4::amz_date(std::chrono::system_clock::now());
  request.expires_seconds = std::clamp<int64_t>(ttl.count(), 1, 604800);
  return sigv4::presign(request);
}

}  // namespace kb::hub::storage
