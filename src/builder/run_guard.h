// What keeps one `kernel-builder build` from hurting another or itself: an exclusive lock on the
// project's build directory (two builds in one directory would overwrite each other's staging
// and variants), a record of Ctrl-C / SIGTERM (children die with the terminal's signal; the
// build then stops with a clear error instead of reporting a compiler failure), and the removal
// of staging directories an interrupted build left behind.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "util/result.h"

namespace kb::builder {

// Held for the whole build: flock(2) on `<build dir>/.kb/lock`, released when the process
// exits, however it exits. A second holder gets an error naming the first one's pid.
class BuildLock {
 public:
  static util::Result<BuildLock> acquire(const std::filesystem::path& build_dir);
  BuildLock(BuildLock&& other) noexcept;
  BuildLock& operator=(BuildLock&&) = delete;
  BuildLock(const BuildLock&) = delete;
  ~BuildLock();

 private:
  explicit BuildLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// Installs SIGINT/SIGTERM handlers that only record the signal, for its lifetime.
class InterruptWatch {
 public:
  InterruptWatch();
  ~InterruptWatch();
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;
  static bool interrupted();
};

// The error of a build stopped by a signal.
util::Error interrupted_error();

// Removes `.staging-*` and `.old-*` directories under `build_dir` (left by an interrupted or
// killed build; never complete variants). Call with the lock held.
void remove_stale_staging(const std::filesystem::path& build_dir);

// Disk-space hint for a failed build: a line when the filesystem holding `dir` has less than
// `threshold_bytes` free (full-disk failures show up as odd compiler/linker errors).
std::optional<std::string> low_disk_space_hint(const std::filesystem::path& dir,
                                               unsigned long long threshold_bytes = 1ull << 30);

}  // namespace kb::builder
