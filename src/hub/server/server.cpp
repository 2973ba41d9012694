// HTTP server setup: routes every method to HubService, one access-log line per request.
#include "hub/server/server.h"

#include <chrono>
#include <cstdio>

#include <httplib.h>

#include "hub/server/http_support.h"
#include "hub/server/service.h"

namespace kb::hub::server {

namespace {

// Start time of the request the current worker thread is serving (set before routing).
thread_local std::chrono::steady_clock::time_point request_start;

size_t response_bytes(const httplib::Response& response) {
  if (!response.body.empty()) return response.body.size();
  std::string length = response.get_header_value("Content-Length");
  return length.empty() ? 0 : std::strtoull(length.c_str(), nullptr, 10);
}

}  // namespace

util::Status serve(const ServerOptions& options, const std::function<void(int port)>& on_listening) {
  std::error_code ec;
  std::filesystem::create_directories(options.root, ec);
  if (ec) {
    return util::Error(util::ErrorKind::io, "Cannot create hub root `" + options.root.string() + "`: " + ec.message());
  }
  auto service = std::make_shared<HubService>(options.root, options.limits);
  httplib::Server http;
  int threads = options.threads;
  http.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  http.set_keep_alive_max_count(10000);
  http.set_keep_alive_timeout(30);
  http.set_tcp_nodelay(true);
  http.set_pre_routing_handler([](const httplib::Request&, httplib::Response&) {
    request_start = std::chrono::steady_clock::now();
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http.set_logger([](const httplib::Request& request, const httplib::Response& response) {
    auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - request_start).count();
    // Headers are never logged and the query string is dropped, so no token reaches the log.
    std::fprintf(stderr, "%s %s %d %zu %.1fms\n", request.method.c_str(), loggable_path(request).c_str(),
                 response.status, response_bytes(response), ms);
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& response, std::exception_ptr) {
    reply_error(response, 500, "", "Internal server error");
  });
  http.Get(".*", [service](const httplib::Request& q, httplib::Response& r) { service->handle_get(q, r); });
  http.Post(".*", [service](const httplib::Request& q, httplib::Response& r) { service->handle_post(q, r); });
  http.Put(".*", [service](const httplib::Request& q, httplib::Response& r, const httplib::ContentReader& reader) {
    service->handle_put(q, r, reader);
  });
  int port = options.port;
  if (port == 0) {
    port = http.bind_to_any_port(options.host);
    if (port < 0) return util::Error(util::ErrorKind::network, "Cannot bind to " + options.host);
  } else if (!http.bind_to_port(options.host, port)) {
    return util::Error(util::ErrorKind::network, "Cannot bind to " + options.host + ":" + std::to_string(port))
        .with_hint("is another server already listening on that port?");
  }
  std::string public_url = options.public_url;
  if (public_url.empty()) {
    bool wildcard = options.host == "0.0.0.0" || options.host == "::" || options.host.empty();
    std::string host = wildcard ? "127.0.0.1" : options.host;
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    public_url = "http://" + host + ":" + std::to_string(port);
  }
  while (!public_url.empty() && public_url.back() == '/') public_url.pop_back();
  service->set_public_url(public_url);
  on_listening(port);
  if (!http.listen_after_bind()) return util::Error(util::ErrorKind::network, "Server stopped unexpectedly");
  return {};
}

}  // namespace kb::hub::server
