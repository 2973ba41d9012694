// Build directory lock, interrupt watch, stale staging cleanup (see run_guard.h).
#include "builder/run_guard.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>

#include "util/fs.h"
#include "util/prelude.h"
#include "util/size_text.h"
#include "util/strings.h"

namespace kb::builder {

namespace {

std::atomic<bool> g_interrupted{false};
struct sigaction g_previous_int{};
struct sigaction g_previous_term{};

extern "C" void record_interrupt(int) { g_interrupted.store(true); }

}  // namespace

util::Result<BuildLock> BuildLock::acquire(const fs::path& build_dir) {
  std::error_code ec;
  fs::create_directories(build_dir / ".kb", ec);
  fs::path path = build_dir / ".kb" / "lock";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Error(ErrorKind::io, "Cannot open the build lock `" + path.string() + "`").with_cause(std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int error = errno;
    std::string holder;
    char buffer[32] = {};
    ssize_t n = ::pread(fd, buffer, sizeof(buffer) - 1, 0);
    if (n > 0) holder = std::string(util::trim(std::string(buffer, static_cast<size_t>(n))));
    ::close(fd);
    if (error != EWOULDBLOCK) {
      return Error(ErrorKind::io, "Cannot lock `" + path.string() + "`").with_cause(std::strerror(error));
    }
    return Error(ErrorKind::io, "Another `kernel-builder build` is running in `" + build_dir.parent_path().string() + "`" +
                                    (holder.empty() ? std::string() : " (pid " + holder + ")"))
        .with_cause("`" + path.string() + "` is locked")
        .with_hint("wait for it to finish: two builds in one directory would overwrite each other's variants");
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, pid.data(), pid.size(), 0);
  return BuildLock(fd);
}

BuildLock::BuildLock(BuildLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

BuildLock::~BuildLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

InterruptWatch::InterruptWatch() {
  g_interrupted.store(false);
  struct sigaction action{};
  action.sa_handler = record_interrupt;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &g_previous_int);
  ::sigaction(SIGTERM, &action, &g_previous_term);
}

InterruptWatch::~InterruptWatch() {
  ::sigaction(SIGINT, &g_previous_int, nullptr);
  ::sigaction(SIGTERM, &g_previous_term, nullptr);
}

bool InterruptWatch::interrupted() { return g_interrupted.load(); }

Error interrupted_error() {
  return Error(ErrorKind::process, "Build interrupted")
      .with_cause("received SIGINT/SIGTERM; the variants being built were discarded, finished ones are kept")
      .with_hint("run `kernel-builder build` again: it continues incrementally");
}

void remove_stale_staging(const fs::path& build_dir) {
  std::error_code ec;
  std::vector<fs::path> stale;
  for (const auto& entry : fs::directory_iterator(build_dir, ec)) {
    std::string name = entry.path().filename().string();
    if (util::starts_with(name, ".staging-") || util::starts_with(name, ".old-")) stale.push_back(entry.path());
  }
  for (const auto& path : stale) fs::remove_all(path, ec);
}

std::optional<std::string> low_disk_space_hint(const fs::path& dir, unsigned long long threshold_bytes) {
  struct statvfs info{};
  if (::statvfs(dir.c_str(), &info) != 0) return std::nullopt;
  unsigned long long free_bytes = static_cast<unsigned long long>(info.f_bavail) * info.f_frsize;
  if (free_bytes >= threshold_bytes) return std::nullopt;
  return "the disk holding `" + dir.string() + "` is (nearly) full: " + util::format_size(free_bytes) +
         " free; free some space and build again";
}

}  // namespace kb::builder
