// Local definitions for the portable (manylinux) programs and Python module (cmake/Portable.cmake):
// what the newer glibc headers this project is compiled with make the code (ours, libstdc++'s,
// OpenSSL's, libcurl's) reference, and the policy's older glibc (2.28 for manylinux_2_28) does not
// define. Each definition is hidden inside the binary and correct on every glibc; the list is the
// set of symbols `auditwheel show` / `kernel-builder check-abi` found above the policy, and
// tests/python/test_wheels.py fails when a new one appears.
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/random.h>

#include <cerrno>
#include <cstdlib>
#include <cstdint>

#define KB_HIDDEN __attribute__((visibility("hidden")))

struct stat;
struct stat64;

extern "C" {

// glibc >= 2.32: libstdc++'s inline atomics skip the atomic instruction when this byte is non-zero.
// 0 means "maybe multi-threaded", which is always correct.
KB_HIDDEN char __libc_single_threaded = 0;

// glibc 2.33 made stat & co. functions of their own; before, the headers turned them into calls of
// these versioned entry points, which every glibc still exports (x86_64: _STAT_VER_LINUX is 1).
int __xstat(int version, const char* path, struct stat* buffer);
int __xstat64(int version, const char* path, struct stat64* buffer);
int __lxstat(int version, const char* path, struct stat* buffer);
int __lxstat64(int version, const char* path, struct stat64* buffer);
int __fxstat(int version, int fd, struct stat* buffer);
int __fxstat64(int version, int fd, struct stat64* buffer);
int __fxstatat(int version, int dirfd, const char* path, struct stat* buffer, int flags);
int __fxstatat64(int version, int dirfd, const char* path, struct stat64* buffer, int flags);
constexpr int kStatVersion = 1;
// The functions are named as the structures are, as in glibc (GCC's -Wshadow objects in C++).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
KB_HIDDEN int stat(const char* path, struct stat* buffer) { return __xstat(kStatVersion, path, buffer); }
KB_HIDDEN int stat64(const char* path, struct stat64* buffer) { return __xstat64(kStatVersion, path, buffer); }
KB_HIDDEN int lstat(const char* path, struct stat* buffer) { return __lxstat(kStatVersion, path, buffer); }
KB_HIDDEN int lstat64(const char* path, struct stat64* buffer) { return __lxstat64(kStatVersion, path, buffer); }
KB_HIDDEN int fstat(int fd, struct stat* buffer) { return __fxstat(kStatVersion, fd, buffer); }
KB_HIDDEN int fstat64(int fd, struct stat64* buffer) { return __fxstat64(kStatVersion, fd, buffer); }
KB_HIDDEN int fstatat(int dirfd, const char* path, struct stat* buffer, int flags) {
  return __fxstatat(kStatVersion, dirfd, path, buffer, flags);
}
KB_HIDDEN int fstatat64(int dirfd, const char* path, struct stat64* buffer, int flags) {
  return __fxstatat64(kStatVersion, dirfd, path, buffer, flags);
}
#pragma GCC diagnostic pop

// glibc 2.36 (libstdc++'s std::random_device): 32 random bits from the kernel (getrandom, 2.25).
KB_HIDDEN uint32_t arc4random(void) {
  uint32_t value = 0;
  for (;;) {
    if (getrandom(&value, sizeof value, 0) == static_cast<ssize_t>(sizeof value)) return value;
    if (errno != EINTR) break;  // ENOSYS: a kernel before 3.17
  }
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || read(fd, &value, sizeof value) != static_cast<ssize_t>(sizeof value)) abort();
  close(fd);
  return value;
}

// glibc 2.29: the real function where the system has it; otherwise ENOSYS, and the caller
// (util/process.cpp) changes directory in the child another way.
KB_HIDDEN int posix_spawn_file_actions_addchdir_np(void* actions, const char* path) {
  using Function = int (*)(void*, const char*);
  static const auto real =
      reinterpret_cast<Function>(dlvsym(RTLD_DEFAULT, "posix_spawn_file_actions_addchdir_np", "GLIBC_2.29"));
  return real != nullptr ? real(actions, path) : ENOSYS;
}

// glibc 2.30 (libstdc++'s condition_variable waits on the steady clock): the real function where
// the system has it; otherwise the same wait on the realtime clock, its deadline moved by the
// time left on the requested clock.
KB_HIDDEN int pthread_cond_clockwait(pthread_cond_t* condition, pthread_mutex_t* mutex, clockid_t clock,
                                     const struct timespec* deadline) {
  using Function = int (*)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const struct timespec*);
  static const auto real = reinterpret_cast<Function>(dlvsym(RTLD_DEFAULT, "pthread_cond_clockwait", "GLIBC_2.30"));
  if (real != nullptr) return real(condition, mutex, clock, deadline);
  if (clock == CLOCK_REALTIME) return pthread_cond_timedwait(condition, mutex, deadline);
  struct timespec now_on_clock{}, now{};
  clock_gettime(clock, &now_on_clock);
  clock_gettime(CLOCK_REALTIME, &now);
  long long left = (deadline->tv_sec - now_on_clock.tv_sec) * 1000000000LL + (deadline->tv_nsec - now_on_clock.tv_nsec);
  if (left < 0) left = 0;
  long long until = now.tv_sec * 1000000000LL + now.tv_nsec + left;
  struct timespec realtime_deadline{static_cast<time_t>(until / 1000000000LL), static_cast<long>(until % 1000000000LL)};
  return pthread_cond_timedwait(condition, mutex, &realtime_deadline);
}

}  // extern "C"
