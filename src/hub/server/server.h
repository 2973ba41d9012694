// Running the Hub service over HTTP (cpp-httplib): connection limits and keep-alive
// (connection.h), body limits, access log.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "hub/server/service.h"
#include "util/result.h"

namespace kb::hub::server {

struct ServerOptions {
  std::filesystem::path root;
  std::string host = "127.0.0.1";
  int port = 0;        // 0: pick a free port
  int threads = 64;    // most worker threads, i.e. requests processed at once (idle connections hold none)
  // Base of returned URLs; empty: http://<host>:<port> (127.0.0.1 for a wildcard host).
  std::string public_url;
  HubLimits limits;
  int keep_alive_timeout = 5;   // seconds an idle keep-alive connection stays open
  int max_connections = 4096;   // open connections; more are answered 503 and closed
};

// Binds, calls `on_listening(port)` once accepting, and serves until the process ends.
util::Status serve(const ServerOptions& options, const std::function<void(int port)>& on_listening);

}  // namespace kb::hub::server
