// libcurl transport: one reused easy handle per thread (keeps connections alive), manual
// redirects with per-hop authorization, retries and resumable downloads.
#include "hub/client/http_client.h"

#include <curl/curl.h>

#include <cstdio>
#include <fstream>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "hub/protocol/error_codes.h"
#include "util/ca_bundle.h"
#include "util/strings.h"

namespace kb::hub::client {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxRedirects = 10;

CURL* thread_handle() {
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  struct Handle {
    CURL* curl = curl_easy_init();
    ~Handle() { curl_easy_cleanup(curl); }
  };
  thread_local Handle handle;
  curl_easy_reset(handle.curl);
  return handle.curl;
}

struct Transfer {
  HttpResponse* response;
  const std::function<bool(std::string_view)>* on_body;
  const HttpRequest* request;
  bool aborted = false;
  bool started = false;
};

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  std::string line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) transfer->response->headers.clear();  // new response (e.g. after 100)
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = util::to_lower(util::trim(line.substr(0, colon)));
    transfer->response->headers[name] = std::string(util::trim(line.substr(colon + 1)));
  }
  return size * count;
}

size_t on_data(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  std::string_view chunk(data, size * count);
  HttpResponse& response = *transfer->response;
  if (transfer->on_body && response.status >= 200 && response.status < 300) {
    if (!transfer->started) {
      transfer->started = true;
      if (transfer->request->on_status) transfer->request->on_status(response.status);
    }
    if (!(*transfer->on_body)(chunk)) {
      transfer->aborted = true;
      return 0;
    }
  } else {
    response.body.append(chunk);
  }
  return chunk.size();
}

size_t read_file_body(char* buffer, size_t size, size_t count, void* user) {
  auto* in = static_cast<std::ifstream*>(user);
  in->read(buffer, static_cast<std::streamsize>(size * count));
  return static_cast<size_t>(in->gcount());
}

std::string scheme_of(const std::string& url) {
  auto colon = url.find("://");
  return colon == std::string::npos ? "" : util::to_lower(url.substr(0, colon));
}

// A redirect may keep its scheme or upgrade http to https; anything else (a downgrade, file://,
// ftp://, ...) would let a Hub or a man in the middle read local files or strip TLS.
bool allowed_redirect(const std::string& from, const std::string& to) {
  std::string a = scheme_of(from);
  std::string b = scheme_of(to);
  if (b != "http" && b != "https") return false;
  return a == b || (a == "http" && b == "https");
}

std::string resolve_location(const std::string& base, const std::string& location) {
  if (location.find("://") != std::string::npos) return location;
  std::string origin = origin_of(base);
  if (!location.empty() && location[0] == '/') return origin + location;
  std::string path = base.substr(0, base.find('?'));
  return path.substr(0, path.rfind('/') + 1) + location;
}

}  // namespace

bool is_retryable_status(long status) { return status == 429 || (status >= 500 && status <= 599); }

HttpClient::HttpClient(HubSettings settings, RetryPolicy policy)
    : settings_(std::move(settings)), policy_(std::move(policy)) {
  // The agent comes from the caller (a Python user_agent dict may hold anything): a line break
  // in it would end the header and start another, so control characters become spaces.
  for (char& c : settings_.user_agent) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = ' ';
  }
}

std::chrono::milliseconds HttpClient::backoff_delay(int attempt, const std::string& retry_after) const {
  std::string value(util::trim(retry_after));
  if (!value.empty() && value.find_first_not_of("0123456789") == std::string::npos && value.size() < 7) {
    auto seconds = std::chrono::milliseconds(std::stol(value) * 1000);
    return std::min(seconds, std::max(policy_.max_delay, std::chrono::milliseconds(60000)));
  }
  auto delay = policy_.base_delay * (1LL << std::min(attempt, 16));
  return std::min<std::chrono::milliseconds>(delay, policy_.max_delay);
}

void HttpClient::wait(std::chrono::milliseconds delay) const {
  if (policy_.sleep) {
    policy_.sleep(delay);
  } else {
    std::this_thread::sleep_for(delay);
  }
}

util::Result<HttpResponse> HttpClient::perform_once(const HttpRequest& request,
                                                    const std::function<bool(std::string_view)>* on_body) {
  std::string url = request.url;
  for (int hop = 0; hop <= kMaxRedirects; ++hop) {
    CURL* curl = thread_handle();
    HttpResponse response;
    response.url = url;
    Transfer transfer{&response, on_body, &request};
    curl_slist* headers = nullptr;
    for (const auto& [name, value] : request.headers) headers = curl_slist_append(headers, (name + ": " + value).c_str());
    // The token goes only to the configured endpoint's origin, never to a redirect target elsewhere.
    if (settings_.token && origin_of(url) == origin_of(settings_.endpoint)) {
      headers = curl_slist_append(headers, ("Authorization: Bearer " + *settings_.token).c_str());
    }
    headers = curl_slist_append(headers, "Expect:");
    std::string agent = settings_.user_agent.empty() ? kDefaultUserAgent : settings_.user_agent;
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_USERAGENT, agent.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    // Only http(s), and the path exactly as built: libcurl would otherwise remove dot segments and
    // ask the server for another resource than the one named.
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    if (const auto& ca = util::system_ca_bundle()) curl_easy_setopt(curl, CURLOPT_CAINFO, ca->c_str());
    curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 30L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 120L);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &transfer);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
    std::ifstream body_file;
    if (request.method == "HEAD") {
      curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    } else if (!request.body_file.empty()) {
      body_file.open(request.body_file, std::ios::binary);
      std::error_code ec;
      auto size = fs::file_size(request.body_file, ec);
      curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
      curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_file_body);
      curl_easy_setopt(curl, CURLOPT_READDATA, &body_file);
      curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(size));
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    } else if (request.method != "GET") {
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    }
    // The status is known before the body arrives, so on_data can route the body.
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, +[](char* d, size_t s, size_t c, void* u) -> size_t {
      auto* t = static_cast<Transfer*>(u);
      std::string line(d, s * c);
      if (line.rfind("HTTP/", 0) == 0) {
        size_t space = line.find(' ');
        if (space != std::string::npos) t->response->status = std::strtol(line.c_str() + space + 1, nullptr, 10);
      }
      return on_header(d, s, c, u);
    });
    CURLcode code = curl_easy_perform(curl);
    curl_slist_free_all(headers);
    if (code != CURLE_OK && !transfer.aborted) {
      return util::Error(util::ErrorKind::network,
                         redacted(std::string("Request to ") + url + " failed: " + curl_easy_strerror(code)))
          .with_hint("check the network and the Hub address (HF_ENDPOINT, now " + redacted(settings_.endpoint) + ")");
    }
    if (transfer.aborted) return util::Error(util::ErrorKind::io, redacted("Download from " + url + " was aborted"));
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    response.status = status;
    bool redirect = status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
    if (redirect && !response.header("location").empty()) {
      std::string next = resolve_location(url, response.header("location"));
      if (!allowed_redirect(url, next)) {
        return util::Error(util::ErrorKind::invalid,
                           redacted("Refusing to follow the redirect from " + url + " to " + next +
                                    ": only http and https are followed, and https never to http"));
      }
      url = next;
      continue;
    }
    return response;
  }
  return util::Error(util::ErrorKind::network, redacted("Too many redirects from " + request.url));
}

util::Result<HttpResponse> HttpClient::send_with_retries(const HttpRequest& request,
                                                         const std::function<bool(std::string_view)>* on_body) {
  for (int attempt = 0;; ++attempt) {
    auto response = perform_once(request, on_body);
    bool retry = false;
    std::string retry_after;
    if (!response) {
      retry = response.error().kind == util::ErrorKind::network;
    } else if (is_retryable_status(response->status)) {
      retry = true;
      retry_after = response->header("retry-after");
    }
    if (!retry || attempt >= policy_.max_retries) return response;
    wait(backoff_delay(attempt, retry_after));
  }
}

util::Result<HttpResponse> HttpClient::send(const HttpRequest& request) { return send_with_retries(request, nullptr); }

util::Result<HttpResponse> HttpClient::send_expecting_ok(const HttpRequest& request, const std::string& what) {
  auto response = send(request);
  if (!response) return response;
  if (response->status != 200) return http_error(*response, what);
  return response;
}

util::Result<HttpResponse> HttpClient::send_streaming(const HttpRequest& request,
                                                      const std::function<bool(std::string_view)>& on_body) {
  return send_with_retries(request, &on_body);
}

util::Result<HttpResponse> HttpClient::download(const std::string& url, const fs::path& destination,
                                                std::optional<uint64_t> expected_size, const ProgressCallback& progress) {
  fs::path partial = destination;
  partial += ".incomplete";
  std::error_code ec;
  fs::create_directories(destination.parent_path(), ec);
  for (int attempt = 0;; ++attempt) {
    uint64_t have = fs::exists(partial, ec) ? fs::file_size(partial, ec) : 0;
    HttpRequest request;
    request.url = url;
    if (have > 0) request.headers.emplace_back("Range", "bytes=" + std::to_string(have) + "-");
    std::ofstream out;
    uint64_t done = have;
    uint64_t total = expected_size.value_or(0);
    request.on_status = [&](long status) {
      // 206: append to what we have; 200: the server ignored Range, start over.
      bool append = status == 206 && have > 0;
      if (!append) done = 0;
      out.open(partial, std::ios::binary | (append ? std::ios::app : std::ios::trunc));
    };
    std::function<bool(std::string_view)> sink = [&](std::string_view chunk) {
      out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
      done += chunk.size();
      if (progress) progress(done, total);
      return static_cast<bool>(out);
    };
    auto response = perform_once(request, &sink);
    out.close();
    if (response && response->status == 416 && have > 0) {
      fs::remove(partial, ec);  // our partial file is longer than the remote; start over
      continue;
    }
    bool transient = !response ? response.error().kind == util::ErrorKind::network
                               : is_retryable_status(response->status);
    if (transient && attempt < policy_.max_retries) {
      wait(backoff_delay(attempt, response ? response->header("retry-after") : ""));
      continue;
    }
    if (!response) return response;
    if (response->status < 200 || response->status >= 300) return http_error(*response, "download");
    if (!fs::exists(partial, ec)) std::ofstream(partial, std::ios::binary).close();  // empty file: no body
    uint64_t size = fs::file_size(partial, ec);
    if (expected_size && size != *expected_size) {
      if (size < *expected_size && attempt < policy_.max_retries) continue;  // truncated: resume
      fs::remove(partial, ec);
      return util::Error(util::ErrorKind::integrity,
                         redacted("Downloaded size " + std::to_string(size) + " of " + url + " differs from expected " +
                                  std::to_string(*expected_size)));
    }
    fs::rename(partial, destination, ec);
    if (ec) return util::Error(util::ErrorKind::io, "Cannot move download to `" + destination.string() + "`: " + ec.message());
    return response;
  }
}

util::Error HttpClient::http_error(const HttpResponse& response, const std::string& what) const {
  util::ErrorKind kind = util::ErrorKind::network;
  if (response.status == 401 || response.status == 403) kind = util::ErrorKind::permission;
  if (response.status == 404) kind = util::ErrorKind::not_found;
  std::string detail;
  auto body = nlohmann::json::parse(response.body, nullptr, false);
  if (body.is_object() && body.contains("error") && body["error"].is_string()) detail = body["error"];
  std::string message = "HTTP " + std::to_string(response.status) + " during " + what + " (" + response.url + ")";
  if (!detail.empty()) message += ": " + detail;
  util::Error error(kind, redacted(message));
  error.status = static_cast<int>(response.status);
  error.code = response.header("x-error-code");
  if (!error.code.empty()) error.causes.push_back("X-Error-Code: " + error.code);
  if (auto hint = http_hint(error.status, error.code, settings_.token.has_value(), settings_.endpoint); !hint.empty()) {
    error.hints.push_back(std::move(hint));
  }
  return error;
}

std::string http_hint(int status, const std::string& code, bool has_token, const std::string& endpoint) {
  namespace error_code = protocol::error_code;
  if (status == 401) {
    return has_token ? "the Hub refused the token from HF_TOKEN (or $HF_HOME/token): check that it is valid and not expired"
                     : "no token is set: set HF_TOKEN or log in with `hf auth login`";
  }
  if (status == 403 && code == error_code::kGatedRepo) {
    return "the repository is gated: request access on its page on " + endpoint + ", then retry with that account's token";
  }
  if (status == 403) return "the token has no access for this: use a token with write permission for the namespace";
  if (code == error_code::kRepoNotFound) {
    return has_token ? "check the repository id, and that the token's account can read the repository"
                     : "check the repository id; a private repository needs a token (set HF_TOKEN)";
  }
  if (code == error_code::kRevisionNotFound) return "check the revision: a branch, tag or commit id of the repository";
  if (status == 429) return "the Hub is limiting the request rate: wait a minute and retry";
  if (status >= 500 && status <= 599) return "the Hub failed to answer: retry later";
  return "";
}

}  // namespace kb::hub::client
