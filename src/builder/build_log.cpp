// Build tools run into a variant's build log (see build_log.h).
#include "builder/build_log.h"

#include <chrono>
#include <condition_variable>
#include <algorithm>
#include <fstream>
#include <mutex>
#include <regex>
#include <thread>

#include "builder/toolchain.h"
#include "util/fs.h"
#include "util/prelude.h"
#include "util/strings.h"

namespace kb::builder {

std::vector<std::string> first_error_lines(const std::string& log) {
  std::vector<std::string> out;
  static const std::regex error_line(R"((error|Error|FAILED:|undefined reference))");
  for (const auto& line : util::split(log, '\n')) {
    // Once each: a template instantiated per dtype repeats its error, CMake repeats its own.
    if (std::regex_search(line, error_line) && std::find(out.begin(), out.end(), line) == out.end()) {
      out.push_back(line);
    }
    if (out.size() >= 8) break;
  }
  return out;
}

Result<util::ProcessResult> run_logged(const BuildSettings& s, const std::string& variant,
                                       const std::vector<std::string>& argv, const fs::path& log_path,
                                       const std::map<std::string, std::string>& env,
                                       const std::function<void()>& every_second) {
  std::ofstream log(log_path, std::ios::app | std::ios::binary);
  log << "$ " << util::join(argv, " ") << "\n";
  util::ProcessOptions options;
  options.env = env;
  options.merge_stderr = true;
  std::string pending;
  static const std::regex status(R"(^\[(\d+)/(\d+)\] (.*)$)");
  bool linking = false;
  options.on_output = [&](std::string_view chunk) {
    log << chunk;
    if (s.stream_logs && s.reporter) s.reporter->log(variant, chunk);
    pending += chunk;
    size_t newline;
    while ((newline = pending.find('\n')) != std::string::npos) {
      std::string line = pending.substr(0, newline);
      pending.erase(0, newline + 1);
      std::smatch match;
      if (s.reporter && std::regex_match(line, match, status)) {
        if (!linking && match[3].str().find("Linking") != std::string::npos) {
          linking = true;
          s.reporter->stage(variant, Stage::link);
        }
        s.reporter->progress(variant, std::stoi(match[1]), std::stoi(match[2]));
      }
    }
  };
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::thread ticker;
  if (every_second) {
    ticker = std::thread([&] {
      std::unique_lock<std::mutex> lock(mutex);
      while (!finished.wait_for(lock, std::chrono::seconds(1), [&] { return done; })) every_second();
    });
  }
  // A build on guessed toolchains stops as soon as a probe refutes its guess (toolchain.h).
  if (s.toolchain_probes) options.stop = [&s] { return s.toolchain_probes->refuted(); };
  auto run = util::run_process(argv, options);
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  finished.notify_all();
  if (ticker.joinable()) ticker.join();
  log.flush();
  return run;
}

void append_log(const fs::path& log_path, const std::string& line) {
  std::ofstream log(log_path, std::ios::app | std::ios::binary);
  log << "kernel-builder: " << line << "\n";
}

Error build_failure(const std::string& variant, const std::string& what, const fs::path& log_path) {
  auto log = util::read_file(log_path);
  Error error(ErrorKind::process, "Cannot build variant `" + variant + "`");
  error.causes.push_back(what);
  if (log) {
    for (const auto& line : first_error_lines(*log)) error.causes.push_back(line);
  }
  error.hints.push_back("full log: " + log_path.string());
  return error;
}

}  // namespace kb::builder
