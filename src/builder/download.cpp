// libcurl download of one file (see download.h).
#include "builder/download.h"

#include <curl/curl.h>

#include <cstdio>
#include <memory>
#include <mutex>

#include "util/ca_bundle.h"
#include "util/prelude.h"

namespace kb::builder {

namespace {

struct Sink {
  std::FILE* file = nullptr;
  bool write_failed = false;
  const DownloadProgress* progress = nullptr;
};

size_t write_body(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  size_t bytes = size * count;
  if (std::fwrite(data, 1, bytes, sink->file) != bytes) {
    sink->write_failed = true;
    return 0;
  }
  return bytes;
}

int on_progress(void* user, curl_off_t total, curl_off_t received, curl_off_t, curl_off_t) {
  auto* sink = static_cast<Sink*>(user);
  if (*sink->progress && received > 0) {
    (*sink->progress)(static_cast<std::uint64_t>(received), static_cast<std::uint64_t>(total > 0 ? total : 0));
  }
  return 0;
}

}  // namespace

util::Status download_file(const std::string& url, const std::filesystem::path& destination,
                           const DownloadProgress& progress) {
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return Error(ErrorKind::network, "Cannot start a download (libcurl could not create a handle)");
  std::unique_ptr<std::FILE, decltype(&std::fclose)> file(std::fopen(destination.c_str(), "wb"), std::fclose);
  if (!file) return Error(ErrorKind::io, "Cannot write `" + destination.string() + "`");
  Sink sink{file.get(), false, &progress};
  CURL* handle = curl.get();
  curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
  curl_easy_setopt(handle, CURLOPT_USERAGENT, "kernel-builder (libcurl)");
  // A pinned archive may sit behind a redirect (a CDN), but never on another scheme.
  curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(handle, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, "https");
  if (const auto& ca = util::system_ca_bundle()) curl_easy_setopt(handle, CURLOPT_CAINFO, ca->c_str());
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT, 30L);
  curl_easy_setopt(handle, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(handle, CURLOPT_LOW_SPEED_TIME, 120L);
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, write_body);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(handle, CURLOPT_XFERINFODATA, &sink);
  curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
  CURLcode code = curl_easy_perform(handle);
  if (sink.write_failed) return Error(ErrorKind::io, "Cannot write `" + destination.string() + "`");
  if (code != CURLE_OK) {
    return Error(ErrorKind::network, "Cannot download " + url).with_cause(curl_easy_strerror(code));
  }
  long status = 0;
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
  if (status >= 400) {
    Error error(ErrorKind::network, "Cannot download " + url);
    error.status = static_cast<int>(status);
    error.causes.push_back("the server answered HTTP " + std::to_string(status));
    return error;
  }
  if (std::fflush(file.get()) != 0) return Error(ErrorKind::io, "Cannot write `" + destination.string() + "`");
  return {};
}

}  // namespace kb::builder
