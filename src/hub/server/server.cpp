// HTTP server setup: the connection layer (connection.h) under HubService, the body limits of
// the HTTP layer (docs/hub-security.md), one access-log line per request.
#include "hub/server/server.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include <httplib.h>

#include "hub/server/connection.h"
#include "hub/server/http_support.h"
#include "hub/server/service.h"
#include "util/size_text.h"

namespace kb::hub::server {

namespace {

size_t response_bytes(const httplib::Response& response) {
  if (!response.body.empty()) return response.body.size();
  std::string length = response.get_header_value("Content-Length");
  return length.empty() ? 0 : std::strtoull(length.c_str(), nullptr, 10);
}

uint64_t declared_length(const httplib::Request& request) {
  // Malformed lengths are refused by the connection layer before routing; before that (the
  // Expect: 100-continue check) this best effort only decides whether to invite the body.
  std::string length = request.get_header_value("Content-Length");
  return length.empty() ? 0 : std::strtoull(length.c_str(), nullptr, 10);
}

// 413 naming the limit and the option that sets it; the connection closes after it, as the body
// was not (fully) read.
void reply_too_large(httplib::Response& response, const std::string& what, const char* option, uint64_t limit) {
  reply_error(response, 413, "",
              what + " is larger than the server's limit of " + std::to_string(limit) + " bytes (" + option + " " +
                  util::format_size(limit) + ")");
  close_connection_after_response();
}

// Refuses, before any of it is read, a body whose Content-Length breaks a limit of the HTTP
// layer: --max-request-body for POST, --max-file-size for PUT (uploads; their tickets' sizes
// are the handler's to check). Returns true when it replied.
bool refuse_body(const HubLimits& limits, const httplib::Request& request, httplib::Response& response) {
  bool upload = request.method == "PUT";
  uint64_t limit = upload ? limits.max_file_size : post_body_limit(limits, request.target);
  uint64_t length = declared_length(request);
  if (length <= limit) return false;
  reply_too_large(response, "Request body of " + std::to_string(length) + " bytes",
                  upload ? "--max-file-size" : "--max-request-body", limit);
  return true;
}

// What the HTTP layer decides from a request's head alone, before routing reads any body.
httplib::Server::HandlerResponse check_head(const HubLimits& limits, const httplib::Request& request,
                                            httplib::Response& response) {
  using HandlerResponse = httplib::Server::HandlerResponse;
  const std::string& method = request.method;
  if (method != "GET" && method != "HEAD" && method != "POST" && method != "PUT" && method != "DELETE") {
    reply_error(response, 405, "", "Method `" + method + "` is not supported");
    response.set_header("Allow", "GET, HEAD, POST, PUT, DELETE");
    return HandlerResponse::Handled;
  }
  if ((method == "POST" || method == "PUT" || method == "DELETE") && request.is_multipart_form_data()) {
    reply_error(response, 415, "", "multipart/form-data bodies are not accepted");
    return HandlerResponse::Handled;
  }
  return refuse_body(limits, request, response) ? HandlerResponse::Handled : HandlerResponse::Unhandled;
}

// The connection options, --max-connections lowered (with a note) to what the open-file limit
// allows once raised: each connection holds a descriptor, and storage, the listener and the
// parker need some too.
ConnectionOptions connection_options(const ServerOptions& options) {
  ConnectionOptions connections;
  connections.max_connections = static_cast<size_t>(options.max_connections);
  connections.max_threads = static_cast<size_t>(options.threads);
  connections.keep_alive_timeout = std::chrono::seconds(options.keep_alive_timeout);
  uint64_t open_files = raise_open_file_limit();
  uint64_t reserved = 64;
  uint64_t allowed = open_files > 2 * reserved ? open_files - reserved : open_files / 2;
  if (connections.max_connections > allowed) {
    std::fprintf(stderr,
                 "note: --max-connections lowered from %zu to %llu: the open-file limit (RLIMIT_NOFILE) is %llu\n",
                 connections.max_connections, static_cast<unsigned long long>(allowed),
                 static_cast<unsigned long long>(open_files));
    connections.max_connections = static_cast<size_t>(allowed);
  }
  return connections;
}

// Every method to HubService. POST and DELETE bodies are read here, under --max-request-body,
// rather than by httplib (which reads any size into memory, chunked ones included); PUT bodies
// (uploads) are read by the handler, cut off at --max-file-size.
void route(ConnectionServer& http, const std::shared_ptr<HubService>& service, const HubLimits& limits) {
  http.Get(".*", [service](const httplib::Request& q, httplib::Response& r) { service->handle_get(q, r); });
  auto with_body = [service, limits](bool is_delete) {
    return [service, limits, is_delete](const httplib::Request& q, httplib::Response& r,
                                        const httplib::ContentReader& reader) {
      bool over_limit = false;
      std::string body;
      uint64_t limit = post_body_limit(limits, q.target);
      bool complete = limited_reader(reader, limit, over_limit)([&body](const char* data, size_t size) {
        body.append(data, size);
        return true;
      });
      if (over_limit) return reply_too_large(r, "Request body", "--max-request-body", limit);
      if (!complete) return reply_error(r, 400, "", "Could not read the request body");
      httplib::Request read = q;
      read.body = std::move(body);
      if (is_delete) return service->handle_delete(read, r);
      service->handle_post(read, r);
    };
  };
  http.Post(".*", with_body(false));
  http.Delete(".*", with_body(true));
  http.Put(".*", [service, limits](const httplib::Request& q, httplib::Response& r, const httplib::ContentReader& reader) {
    bool over_limit = false;
    service->handle_put(q, r, limited_reader(reader, limits.max_file_size, over_limit));
    if (over_limit) reply_too_large(r, "Uploaded body", "--max-file-size", limits.max_file_size);
  });
}

std::string default_public_url(const std::string& host, int port) {
  bool wildcard = host == "0.0.0.0" || host == "::" || host.empty();
  std::string shown = wildcard ? "127.0.0.1" : host;
  if (shown.find(':') != std::string::npos) shown = "[" + shown + "]";
  return "http://" + shown + ":" + std::to_string(port);
}

}  // namespace

util::Status serve(const ServerOptions& options, const std::function<void(int port)>& on_listening) {
  std::error_code ec;
  std::filesystem::create_directories(options.root, ec);
  if (ec) {
    return util::Error(util::ErrorKind::io, "Cannot create hub root `" + options.root.string() + "`: " + ec.message());
  }
  const HubLimits limits = options.limits;
  auto service = std::make_shared<HubService>(options.root, limits);

  ConnectionServer http(connection_options(options));
  http.set_tcp_nodelay(true);
  // A backstop only: check_head and limited_reader enforce the per-method limits first
  // (httplib's own check reads the whole refused body and keeps the connection open).
  http.set_payload_max_length(static_cast<size_t>(std::max(limits.max_file_size, limits.max_request_body)));
  http.set_request_head_handler(
      [limits](const httplib::Request& request, httplib::Response& response) { return check_head(limits, request, response); });
  // "Expect: 100-continue": refuse an over-long body at once instead of inviting it.
  http.set_expect_100_continue_handler([limits](const httplib::Request& request, httplib::Response& response) {
    return refuse_body(limits, request, response) ? response.status : 100;
  });
  http.set_logger([](const httplib::Request& request, const httplib::Response& response) {
    auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - current_request_start()).count();
    // Headers are never logged and the query string is dropped, so no token reaches the log.
    std::fprintf(stderr, "%s %s %d %zu %.1fms\n", request.method.c_str(), loggable_path(request).c_str(),
                 response.status, response_bytes(response), ms);
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& response, std::exception_ptr) {
    reply_error(response, 500, "", "Internal server error");
  });
  route(http, service, limits);

  auto port = http.bind(options.host, options.port);
  if (!port) return std::move(port).error();
  std::string public_url = options.public_url.empty() ? default_public_url(options.host, *port) : options.public_url;
  while (!public_url.empty() && public_url.back() == '/') public_url.pop_back();
  service->set_public_url(public_url);
  on_listening(*port);
  if (!http.listen_after_bind()) return util::Error(util::ErrorKind::network, "Server stopped unexpectedly");
  return {};
}

}  // namespace kb::hub::server
