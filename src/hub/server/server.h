// Running the Hub service over HTTP: the server core (server_core.h: connections, keep-alive,
// request-body rate and deadline), body limits, access log.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "hub/server/service.h"
#include "hub/storage/backend.h"
#include "util/result.h"

namespace kb::hub::server {

struct ServerOptions {
  // The Hub's state: the directory `backend.root`, or (replicas) PostgreSQL and an object store,
  // `backend.root` then being this replica's scratch (docs/hub-scale.md).
  storage::BackendConfig backend;
  std::string host = "127.0.0.1";
  int port = 0;        // 0: pick a free port
  int threads = 64;    // most worker threads, i.e. requests processed at once (idle connections hold none)
  // Base of returned URLs; empty: http://<host>:<port> (127.0.0.1 for a wildcard host).
  std::string public_url;
  HubLimits limits;
  int keep_alive_timeout = 5;   // seconds an idle keep-alive connection stays open
  int max_connections = 4096;   // open connections; more are answered 503 and closed
  uint64_t body_min_rate = 16 * 1024;  // bytes/s a request body keeps up on average (after 5 s)
  int body_timeout = 3600;             // seconds a request body may take in all
};

// Binds, calls `on_listening(port)` once accepting, and serves until the process ends.
util::Status serve(const ServerOptions& options, const std::function<void(int port)>& on_listening);

}  // namespace kb::hub::server
