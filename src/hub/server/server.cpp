// HTTP server setup: the server core (server_core.h, Boost.Beast) under HubService, the body
// limits of the HTTP layer (docs/hub-security.md), one access-log line per request.
#include "hub/server/server.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "hub/server/http_message.h"
#include "hub/server/http_support.h"
#include "hub/server/server_core.h"
#include "hub/server/service.h"
#include "util/size_text.h"

namespace kb::hub::server {

namespace {

uint64_t declared_length(const Request& request) {
  // Malformed lengths are refused by the core before this runs.
  std::string length = request.get_header_value("Content-Length");
  return length.empty() ? 0 : std::strtoull(length.c_str(), nullptr, 10);
}

// The largest body of a request: --max-file-size for PUT (uploads; their tickets' sizes are the
// handler's to check), --max-request-body for the rest.
uint64_t body_limit(const HubLimits& limits, const Request& request) {
  return request.method == "PUT" ? limits.max_file_size : post_body_limit(limits, request.target);
}

// What the HTTP layer decides from a request's head alone, before any of its body is read:
// methods, multipart bodies, and a Content-Length over the limit (413 naming the limit and the
// option that sets it).
bool check_head(const HubLimits& limits, const Request& request, Response& response) {
  const std::string& method = request.method;
  if (method != "GET" && method != "HEAD" && method != "POST" && method != "PUT" && method != "DELETE") {
    reply_error(response, 405, "", "Method `" + method + "` is not supported");
    response.set_header("Allow", "GET, HEAD, POST, PUT, DELETE");
    return true;
  }
  if ((method == "POST" || method == "PUT" || method == "DELETE") && request.is_multipart_form_data()) {
    reply_error(response, 415, "", "multipart/form-data bodies are not accepted");
    return true;
  }
  bool upload = method == "PUT";
  uint64_t limit = body_limit(limits, request);
  uint64_t length = declared_length(request);
  if (length <= limit) return false;
  reply_error(response, 413, "",
              "Request body of " + std::to_string(length) + " bytes is larger than the server's limit of " +
                  std::to_string(limit) + " bytes (" + (upload ? "--max-file-size" : "--max-request-body") + " " +
                  util::format_size(limit) + ")");
  return true;
}

// The core options, --max-connections lowered (with a note) to what the open-file limit allows
// once raised: each connection holds a descriptor, and storage and the listener need some too.
CoreOptions core_options(const ServerOptions& options) {
  CoreOptions core;
  core.max_connections = static_cast<size_t>(options.max_connections);
  core.max_threads = static_cast<size_t>(options.threads);
  core.keep_alive_timeout = std::chrono::seconds(options.keep_alive_timeout);
  core.body_min_rate = options.body_min_rate;
  core.body_timeout = std::chrono::seconds(options.body_timeout);
  core.spool_dir = options.backend.root / "tmp" / "bodies";
  // Half the cores hold the connections (sendfile runs there too), the rest are the workers'.
  core.io_threads = std::clamp<size_t>(std::thread::hardware_concurrency() / 2, 2, 8);
  uint64_t open_files = raise_open_file_limit();
  uint64_t reserved = 64;
  uint64_t allowed = open_files > 2 * reserved ? open_files - reserved : open_files / 2;
  if (core.max_connections > allowed) {
    std::fprintf(stderr,
                 "note: --max-connections lowered from %zu to %llu: the open-file limit (RLIMIT_NOFILE) is %llu\n",
                 core.max_connections, static_cast<unsigned long long>(allowed),
                 static_cast<unsigned long long>(open_files));
    core.max_connections = static_cast<size_t>(allowed);
  }
  return core;
}

// Every method to HubService (HEAD is GET without the body; the core leaves the body out).
void handle(HubService& service, const Request& request, Response& response, const ContentReader& reader) {
  if (request.method == "GET" || request.method == "HEAD") return service.handle_get(request, response);
  if (request.method == "POST") return service.handle_post(request, response);
  if (request.method == "DELETE") return service.handle_delete(request, response);
  service.handle_put(request, response, reader);
}

std::string default_public_url(const std::string& host, int port) {
  bool wildcard = host == "0.0.0.0" || host == "::" || host.empty();
  std::string shown = wildcard ? "127.0.0.1" : host;
  if (shown.find(':') != std::string::npos) shown = "[" + shown + "]";
  return "http://" + shown + ":" + std::to_string(port);
}

}  // namespace

util::Status serve(const ServerOptions& options, const std::function<void(int port)>& on_listening) {
  auto backend = storage::open_backend(options.backend);
  if (!backend) return std::move(backend).error();
  const HubLimits limits = options.limits;
  auto service = std::make_shared<HubService>(options.backend.root, limits, backend->records.get(), backend->blobs);

  CoreHandlers handlers;
  handlers.check_head = [limits, service](const Request& request, Response& response) {
    return check_head(limits, request, response) ||
           (request.method == "PUT" && service->refuse_put_before_body(request, response));
  };
  handlers.body_limit = [limits](const Request& request) { return body_limit(limits, request); };
  handlers.handle = [service](const Request& request, Response& response, const ContentReader& reader) {
    handle(*service, request, response, reader);
  };
  handlers.log = [](const Request& request, const Response& response, uint64_t bytes, double ms) {
    // Headers are never logged and the query string is dropped, so no token reaches the log.
    // A refusal names its Hub error code (X-Error-Code), never its message, which may quote input.
    std::string code = response.get_header_value("X-Error-Code");
    std::fprintf(stderr, "%s %s %d %llu %.1fms%s%s\n", request.method.c_str(), loggable_path(request).c_str(),
                 response.status, static_cast<unsigned long long>(bytes), ms, code.empty() ? "" : " ", code.c_str());
  };
  ServerCore core(core_options(options), std::move(handlers));
  auto port = core.bind(options.host, options.port);
  if (!port) return std::move(port).error();
  std::string public_url = options.public_url.empty() ? default_public_url(options.host, *port) : options.public_url;
  while (!public_url.empty() && public_url.back() == '/') public_url.pop_back();
  service->set_public_url(public_url);
  on_listening(*port);
  return core.run();
}

}  // namespace kb::hub::server
