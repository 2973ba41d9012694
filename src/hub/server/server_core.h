// The server core of kernel-hub (docs/hub-security.md, "Connections" and "Request bodies"):
// Boost.Beast over Asio. Connections live on a few I/O threads as asynchronous state, so an idle
// or slow connection costs a socket and a few KiB, never a thread:
//
// - a request head must arrive within --read-timeout (the first request) or --keep-alive-timeout
//   (the next ones), within the parser's header limit;
// - a request body must keep up --body-min-rate bytes/s on average once --read-timeout has passed
//   since its start, and end within --body-timeout; a client that falls behind is closed;
// - a body is read whole before its route runs: POST/DELETE bodies into memory (under the route's
//   limit), PUT bodies (uploads) into an unlinked spool file, so a route never waits on a client;
// - routes, and the content providers of the responses, run on worker threads (--threads); a
//   response is written asynchronously, one provider chunk at a time, under --write-timeout;
// - at most --max-connections are open; the next is answered 503 and closed.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "hub/server/http_message.h"
#include "util/result.h"

namespace kb::hub::server {

struct CoreOptions {
  size_t max_connections = 4096;               // open at once; more are answered 503
  size_t max_threads = 64;                     // worker threads: routes running at once
  size_t io_threads = 2;                       // threads holding the connections
  std::chrono::seconds keep_alive_timeout{5};  // idle time before a connection is closed
  std::chrono::seconds read_timeout{5};        // a request head; a body's grace before its rate counts
  std::chrono::seconds write_timeout{5};       // one write of a response
  uint64_t body_min_rate = 16 * 1024;          // bytes/s a request body keeps up, on average
  std::chrono::seconds body_timeout{3600};     // the longest a request body may take
  size_t max_requests_per_connection = 10000;  // then the connection is closed
  size_t max_header_bytes = 64 * 1024;         // request line and headers
  std::filesystem::path spool_dir;             // where PUT bodies are spooled (unlinked files)
};

struct CoreHandlers {
  // On an I/O thread, once a head is read and its framing is sound, before any of the body:
  // answers (returns true) to refuse the request. Must not block.
  std::function<bool(const Request&, Response&)> check_head;
  // The largest body the request may have (the parser stops at the first byte beyond).
  std::function<uint64_t(const Request&)> body_limit;
  // On a worker, with the whole body read: `reader` feeds a PUT body from its spool file (and a
  // POST/DELETE body, also in request.body).
  std::function<void(const Request&, Response&, const ContentReader& reader)> handle;
  // After each response: the bytes of body sent and the time since the head arrived.
  std::function<void(const Request&, const Response&, uint64_t body_bytes, double milliseconds)> log;
};

class ServerCore {
 public:
  ServerCore(CoreOptions options, CoreHandlers handlers);
  ~ServerCore();
  ServerCore(const ServerCore&) = delete;
  ServerCore& operator=(const ServerCore&) = delete;

  // Binds host:port (0: any free port) with a backlog of SOMAXCONN; returns the port.
  util::Result<int> bind(const std::string& host, int port);
  // Accepts and serves until stop(); the calling thread is one of the I/O threads.
  util::Status run();
  void stop();

  struct State;

 private:
  std::shared_ptr<State> state_;
};

// Asks the core to close the connection once the current response is sent. Call it from a route
// that leaves the connection in a state not worth keeping. Does nothing outside a route.
void close_connection_after_response();

// Raises the soft limit of open files (RLIMIT_NOFILE) to the hard limit; returns the soft limit
// in force afterwards.
uint64_t raise_open_file_limit();

}  // namespace kb::hub::server
