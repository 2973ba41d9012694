// `kernel-hub serve`: run the Hub server on a storage root, with the limits of
// docs/hub-security.md as options.
#include <cstdio>

#include "cli/command_registry.h"
#include "cli/kernel_hub/backend_options.h"
#include "hub/server/server.h"
#include "util/size_text.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

struct Options {
  BackendOptions backend;
  std::string host = "127.0.0.1";
  int port = 8000;
  int threads = 64;
  std::string public_url;
  std::string max_file_size = "10G";
  std::string max_request_body = "64M";
  size_t max_files_per_commit = 10000;
  std::string quota = "100G";
  size_t max_discussions_per_hour = 30;
  size_t max_benchmark_runs_per_hour = 60;
  int keep_alive_timeout = 5;
  int max_connections = 4096;
  std::string body_min_rate = "16K";
  int body_timeout = 3600;
};

// SIZE options stay text until the action runs; this makes a bad one a usage error first.
const CLI::Validator size_text(
    [](std::string& text) {
      auto size = util::parse_size(text);
      return size ? std::string() : size.error().message;
    },
    "");

const CLI::Validator base_url(
    [](std::string& text) {
      bool scheme = text.rfind("http://", 0) == 0 || text.rfind("https://", 0) == 0;
      size_t host = text.find("://") + 3;
      if (!scheme || host >= text.size() || text[host] == '/' || text.find_first_of("?# ") != std::string::npos) {
        return "Invalid URL `" + text + "`: expected http(s)://host[:port][/path], without query or fragment";
      }
      return std::string();
    },
    "");

uint64_t size_of(const std::string& text) { return util::parse_size(text).value(); }

Action setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  add_backend_options(app, o->backend,
                      "Storage directory (created if missing); with --database, only this replica's scratch "
                      "(staged uploads, request bodies)");
  app.add_option("--host", o->host, "Address to listen on")->capture_default_str();
  app.add_option("--port", o->port, "Port to listen on (0: pick a free port)")->capture_default_str();
  app.add_option("--public-url", o->public_url,
                 "Base of every absolute URL the server returns; never taken from the Host header "
                 "(default: http://<host>:<port>, 127.0.0.1 for a wildcard host)")
      ->type_name("URL")
      ->check(base_url);
  app.add_option("--threads", o->threads,
                 "Most worker threads, i.e. requests processed at once; started on demand, each exits "
                 "after 30 s idle; idle connections and bodies being received hold none")
      ->capture_default_str()
      ->type_name("N")
      ->check(CLI::Range(1, 4096));
  app.add_option("--max-connections", o->max_connections,
                 "Most open connections; more are answered 503 and closed (lowered, with a note, to "
                 "what the open-file limit allows)")
      ->capture_default_str()
      ->type_name("N")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--keep-alive-timeout", o->keep_alive_timeout,
                 "Seconds an idle keep-alive connection stays open before the server closes it")
      ->capture_default_str()
      ->type_name("SECONDS")
      ->check(CLI::Range(1, 3600));
  app.add_option("--body-min-rate", o->body_min_rate,
                 "Bytes per second a request body must keep up, on average since its first byte, once "
                 "5 s have passed; a slower client is closed (SIZE per second)")
      ->capture_default_str()
      ->type_name("SIZE")
      ->check(size_text);
  app.add_option("--body-timeout", o->body_timeout,
                 "Seconds a request body may take in all, however fast it arrives; then the client is closed")
      ->capture_default_str()
      ->type_name("SECONDS")
      ->check(CLI::Range(1, 86400));
  app.add_option("--max-file-size", o->max_file_size,
                 "Largest file (LFS object or inline content); larger uploads are refused with 413. "
                 "SIZE: bytes, or with a suffix K, M, G, T (powers of 1024; KiB, KB accepted)")
      ->capture_default_str()
      ->type_name("SIZE")
      ->check(size_text);
  app.add_option("--max-request-body", o->max_request_body,
                 "Largest non-upload request body (JSON, ndjson commit); larger ones are refused with "
                 "413 (SIZE)")
      ->capture_default_str()
      ->type_name("SIZE")
      ->check(size_text);
  app.add_option("--max-files-per-commit", o->max_files_per_commit,
                 "Most operations in one commit; more are refused with 413")
      ->capture_default_str()
      ->type_name("N")
      ->check(CLI::Range(size_t{1}, size_t{10000000}));
  app.add_option("--quota", o->quota,
                 "Storage per user: the distinct objects they uploaded and the records they added "
                 "(repositories, commits, branches, tags, discussions, Xet files, benchmark runs), summed "
                 "(SIZE; 0: no quota)")
      ->capture_default_str()
      ->type_name("SIZE")
      ->check(size_text);
  app.add_option("--max-discussions-per-hour", o->max_discussions_per_hour,
                 "Most discussions and pull requests one user opens in an hour; more are refused with 429 "
                 "(0: no limit)")
      ->capture_default_str()
      ->type_name("N");
  app.add_option("--max-benchmark-runs-per-hour", o->max_benchmark_runs_per_hour,
                 "Most benchmark runs one user posts in an hour; more are refused with 429 (0: no limit)")
      ->capture_default_str()
      ->type_name("N");
  return [o] {
    hub::server::ServerOptions options;
    options.backend = o->backend.config();
    options.backend.connections = static_cast<size_t>(o->threads);
    options.host = o->host;
    options.port = o->port;
    options.threads = o->threads;
    options.public_url = o->public_url;
    options.limits.max_file_size = size_of(o->max_file_size);
    options.limits.max_request_body = size_of(o->max_request_body);
    options.limits.max_files_per_commit = o->max_files_per_commit;
    options.limits.quota = size_of(o->quota);
    options.limits.max_discussions_per_hour = o->max_discussions_per_hour;
    options.limits.max_benchmark_runs_per_hour = o->max_benchmark_runs_per_hour;
    options.keep_alive_timeout = o->keep_alive_timeout;
    options.max_connections = o->max_connections;
    options.body_min_rate = size_of(o->body_min_rate);
    options.body_timeout = o->body_timeout;
    return exit_status(hub::server::serve(options, [o](int port) {
      // Tests and scripts read this line to learn the port.
      std::printf("Listening on http://%s:%d\n", o->host.c_str(), port);
      std::fflush(stdout);
    }));
  };
}

const RegisterCommand registration("kernel-hub", {"serve", "Run the Hub server", setup, false, 10});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
