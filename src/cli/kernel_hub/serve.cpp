// `kernel-hub serve`: run the Hub server on a storage root.
#include <cstdio>

#include "cli/command_registry.h"
#include "hub/server/server.h"

namespace kb::cli {
namespace {

struct Options {
  std::string root;
  std::string host = "127.0.0.1";
  int port = 8000;
  int threads = 32;
};

Action setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--root", o->root, "Storage directory (created if missing)")->required();
  app.add_option("--host", o->host, "Address to listen on")->capture_default_str();
  app.add_option("--port", o->port, "Port to listen on (0: pick a free port)")->capture_default_str();
  app.add_option("--threads", o->threads, "Worker threads")->capture_default_str()->check(CLI::Range(1, 1024));
  return [o] {
    hub::server::ServerOptions options;
    options.root = o->root;
    options.host = o->host;
    options.port = o->port;
    options.threads = o->threads;
    return exit_status(hub::server::serve(options, [o](int port) {
      // Tests and scripts read this line to learn the port.
      std::printf("Listening on http://%s:%d\n", o->host.c_str(), port);
      std::fflush(stdout);
    }));
  };
}

const RegisterCommand registration("kernel-hub", {"serve", "Run the Hub server", setup, false, 10});

}  // namespace
}  // namespace kb::cli
