// HTTP transport of the Hub client on libcurl: retries with exponential back-off honouring
// Retry-After (429 and 5xx, at most 5 retries), redirects followed by hand so the token is
// only ever sent to the configured endpoint's origin (and only to http or https, never from
// https down to http), URL paths sent as built (no dot-segment removal), resumable downloads into
// `<dest>.incomplete` with Range, and redaction of the token in every error message.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hub/client/settings.h"
#include "util/result.h"

namespace kb::hub::client {

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::filesystem::path body_file;  // if set, the body is streamed from this file (PUT)
  // Streaming only: called with the status before the first body byte of a 2xx response.
  std::function<void(long)> on_status;
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // lower-cased names; last value wins
  std::string body;
  std::string url;  // final URL after redirects
  std::string header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? "" : it->second;
  }
};

struct RetryPolicy {
  int max_retries = 5;
  std::chrono::milliseconds base_delay{500};
  std::chrono::milliseconds max_delay{30000};
  // Injected by tests to observe back-off without waiting.
  std::function<void(std::chrono::milliseconds)> sleep;
};

// Bytes done, total (0 if unknown).
using ProgressCallback = std::function<void(uint64_t, uint64_t)>;

// The likely fix for a Hub's error answer, chosen from its status and Hub error code (never its
// text) and whether a token was sent; empty when none is likely.
std::string http_hint(int status, const std::string& code, bool has_token, const std::string& endpoint);

class HttpClient {
 public:
  explicit HttpClient(HubSettings settings, RetryPolicy policy = {});

  const HubSettings& settings() const { return settings_; }

  // Sends with retries and redirects; the body of any status is returned in the response.
  util::Result<HttpResponse> send(const HttpRequest& request);
  // Like send, but an answer other than 200 is the error http_error(response, what).
  util::Result<HttpResponse> send_expecting_ok(const HttpRequest& request, const std::string& what);
  // Like send, but a 2xx body is passed to `on_body` as it arrives (not retried once started).
  util::Result<HttpResponse> send_streaming(const HttpRequest& request,
                                            const std::function<bool(std::string_view)>& on_body);
  // GET `url` into `destination` via `<destination>.incomplete`, resuming with Range after
  // interruptions; checks `expected_size` when given. Returns the response headers.
  util::Result<HttpResponse> download(const std::string& url, const std::filesystem::path& destination,
                                      std::optional<uint64_t> expected_size, const ProgressCallback& progress);

  // Error for a non-2xx response: kind from the status, message with the redacted URL and
  // the server's {"error": ...} text, status and Hub error code as fields, a hint from http_hint.
  util::Error http_error(const HttpResponse& response, const std::string& what) const;
  std::string redacted(const std::string& text) const { return redact(text, settings_.token); }

  // The delay before retry number `attempt` (0-based) given a Retry-After header value.
  std::chrono::milliseconds backoff_delay(int attempt, const std::string& retry_after) const;

 private:
  util::Result<HttpResponse> perform_once(const HttpRequest& request,
                                          const std::function<bool(std::string_view)>* on_body);
  util::Result<HttpResponse> send_with_retries(const HttpRequest& request,
                                               const std::function<bool(std::string_view)>* on_body);
  void wait(std::chrono::milliseconds delay) const;

  HubSettings settings_;
  RetryPolicy policy_;
};

bool is_retryable_status(long status);

}  // namespace kb::hub::client
