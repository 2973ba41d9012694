// Running the Hub service over HTTP (cpp-httplib): thread pool, keep-alive, access log.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "util/result.h"

namespace kb::hub::server {

struct ServerOptions {
  std::filesystem::path root;
  std::string host = "127.0.0.1";
  int port = 0;        // 0: pick a free port
  int threads = 32;    // worker threads (concurrent connections served)
};

// Binds, calls `on_listening(port)` once accepting, and serves until the process ends.
util::Status serve(const ServerOptions& options, const std::function<void(int port)>& on_listening);

}  // namespace kb::hub::server
