// The connection layer of kernel-hub under cpp-httplib 0.11.4 (docs/hub-security.md,
// "Connections" and the body rules of "Limits"):
//
// - Idle keep-alive connections hold no thread: after each response a connection with nothing
//   more to read is parked in an epoll set; when its next request arrives it goes back to the
//   worker pool, and after --keep-alive-timeout idle seconds it is closed. Workers start on
//   demand up to --threads and exit when idle, so threads follow requests in progress.
// - At most --max-connections are open; the next is answered 503 and closed.
// - Request framing is checked before routing (Content-Length and Transfer-Encoding together,
//   or a malformed Content-Length: refused), and a connection whose request body was not read
//   to its end is closed after the response, after draining at most 64 KiB, so an unread body
//   is never parsed as a request.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <httplib.h>

#include "util/result.h"

namespace kb::hub::server {

// Asks the server to close the current connection once this response is sent (after draining at
// most 64 KiB of what the client still sends). Call it when refusing a request whose body was
// not (fully) read. Does nothing outside a request handler.
void close_connection_after_response();

// When the request being handled on this thread began (its first byte was available).
std::chrono::steady_clock::time_point current_request_start();

// `reader` for handlers that consume a request body: it stops at the first byte beyond `limit`
// (the read then fails and `over_limit` is set), reads nothing when the request has no body
// (no Content-Length, no Transfer-Encoding: RFC 9112 §6.3, rather than httplib's read-to-EOF),
// and tells the connection layer when the body was read to its end, so the connection may stay
// open. `over_limit` must outlive the returned reader.
httplib::ContentReader limited_reader(const httplib::ContentReader& reader, uint64_t limit, bool& over_limit);

struct ConnectionOptions {
  size_t max_connections = 4096;                     // open at once; more are answered 503
  size_t max_threads = 64;                           // worker threads: requests processed at once
  std::chrono::seconds keep_alive_timeout{5};        // idle time before a connection is closed
  std::chrono::seconds read_timeout{5};              // one read of a request in progress
  std::chrono::seconds write_timeout{5};             // one write of a response
  std::chrono::seconds idle_worker_exit{30};         // an idle worker thread exits after this
  // How long a worker waits for a connection's next request before parking it: a client that
  // sends at once is served without the hop through the parker (two thread wake-ups).
  std::chrono::milliseconds park_after{10};
  size_t max_requests_per_connection = 10000;        // then the connection is closed
};

class Connection;
class ConnectionParker;
class WorkerPool;

// An httplib::Server with the connection model above. Use set_request_head_handler instead of
// set_pre_routing_handler, and leave the post-routing handler to it.
class ConnectionServer : public httplib::Server {
 public:
  explicit ConnectionServer(const ConnectionOptions& options);
  ~ConnectionServer() override;

  // Binds host:port (0: any free port) with a listen backlog of SOMAXCONN (httplib's is 5).
  // Returns the port.
  util::Result<int> bind(const std::string& host, int port);

  // Runs on every request whose head (request line and headers) was read and whose framing is
  // sound, before any of its body is read; may answer it (return Handled).
  void set_request_head_handler(HandlerWithResponse handler);

 private:
  bool process_and_close_socket(socket_t sock) override;
  // Serves requests while bytes are waiting, then parks the connection or closes it.
  void serve(const std::shared_ptr<Connection>& connection);
  // Answers 503 on a connection beyond --max-connections and closes it.
  void refuse(socket_t sock);

  ConnectionOptions options_;
  std::atomic<size_t> open_{0};
  HandlerWithResponse head_handler_;
  std::unique_ptr<WorkerPool> pool_;
  std::unique_ptr<ConnectionParker> parker_;  // after pool_: destroyed first, as it feeds the pool
};

// Raises the soft limit of open files (RLIMIT_NOFILE) to the hard limit; returns the soft limit
// in force afterwards.
uint64_t raise_open_file_limit();

}  // namespace kb::hub::server
