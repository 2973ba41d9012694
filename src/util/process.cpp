// posix_spawn-based process runner (see process.h).
#include "util/process.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/strings.h"

extern char** environ;

namespace kb::util {

std::optional<std::filesystem::path> find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    if (::access(name.c_str(), X_OK) == 0) return std::filesystem::path(name);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  for (const std::string& dir : split(path, ':')) {
    std::filesystem::path candidate = std::filesystem::path(dir.empty() ? std::string(".") : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate)) return candidate;
  }
  return std::nullopt;
}

namespace {
std::vector<std::string> build_environment(const ProcessOptions& options) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    std::string key = entry.substr(0, entry.find('='));
    bool drop = options.env.count(key) > 0;
    for (const auto& unset : options.unset_env) drop = drop || unset == key;
    if (!drop) env.push_back(entry);
  }
  for (const auto& [key, value] : options.env) env.push_back(key + "=" + value);
  return env;
}
}  // namespace

Result<ProcessResult> run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  if (argv.empty()) return Error(ErrorKind::process, "empty command line");
  auto program = find_program(argv[0]);
  if (!program) return Error(ErrorKind::process, "Cannot find program `" + argv[0] + "` on PATH");

  int out_pipe[2] = {-1, -1};
  int err_pipe[2] = {-1, -1};
  int in_pipe[2] = {-1, -1};
  if (options.capture_stdout && ::pipe2(out_pipe, O_CLOEXEC) != 0) return Error(ErrorKind::process, "pipe failed");
  if (options.capture_stderr && !options.merge_stderr && ::pipe2(err_pipe, O_CLOEXEC) != 0)
    return Error(ErrorKind::process, "pipe failed");
  if (options.stdin_data && ::pipe2(in_pipe, O_CLOEXEC) != 0) return Error(ErrorKind::process, "pipe failed");

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (options.capture_stdout) posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  if (options.merge_stderr && options.capture_stdout) posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 2);
  else if (options.capture_stderr) posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  if (options.stdin_data) posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  else if (options.stdin_fd >= 0) posix_spawn_file_actions_adddup2(&actions, options.stdin_fd, 0);
  else posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<std::string> args = argv;
  std::string executable = program->string();
  if (!options.cwd.empty() && posix_spawn_file_actions_addchdir_np(&actions, options.cwd.c_str()) != 0) {
    // glibc before 2.29 (a portable build on an old system, util/portable/glibc_compat.cpp): a
    // shell changes the directory and then becomes the program.
    args.front() = executable;
    args.insert(args.begin(), {"/bin/sh", "-c", "cd -- \"$0\" && exec \"$@\"", options.cwd.string()});
    executable = "/bin/sh";
  }

  std::vector<std::string> env = build_environment(options);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> argp;
  for (auto& a : args) argp.push_back(a.data());
  argp.push_back(nullptr);

  pid_t pid = 0;
  int rc = posix_spawn(&pid, executable.c_str(), &actions, nullptr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  auto close_fd = [](int& fd) { if (fd >= 0) { ::close(fd); fd = -1; } };
  close_fd(out_pipe[1]);
  close_fd(err_pipe[1]);
  close_fd(in_pipe[0]);
  if (rc != 0) {
    close_fd(out_pipe[0]);
    close_fd(err_pipe[0]);
    close_fd(in_pipe[1]);
    return Error(ErrorKind::process, "Cannot start `" + argv[0] + "`").with_cause(std::strerror(rc));
  }
  if (options.stdin_data) {
    const std::string& data = *options.stdin_data;
    size_t off = 0;
    while (off < data.size()) {
      ssize_t n = ::write(in_pipe[1], data.data() + off, data.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    close_fd(in_pipe[1]);
  }

  ProcessResult result;
  std::vector<pollfd> fds;
  if (out_pipe[0] >= 0) fds.push_back({out_pipe[0], POLLIN, 0});
  if (err_pipe[0] >= 0) fds.push_back({err_pipe[0], POLLIN, 0});
  char buffer[65536];
  bool stopped = false;
  while (!fds.empty()) {
    int ready = ::poll(fds.data(), fds.size(), options.stop && !stopped ? 250 : -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (options.stop && !stopped && options.stop()) {
      ::kill(pid, SIGTERM);
      stopped = true;
    }
    for (size_t i = 0; i < fds.size();) {
      if (fds[i].revents == 0) { ++i; continue; }
      ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        std::string_view chunk(buffer, static_cast<size_t>(n));
        (fds[i].fd == out_pipe[0] ? result.stdout_text : result.stderr_text).append(chunk);
        if (options.on_output) options.on_output(chunk);
        ++i;
      } else if (n < 0 && errno == EINTR) {
        ++i;
      } else {
        ::close(fds[i].fd);
        fds.erase(fds.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace kb::util
