// The worker threads of the Hub server: route handlers and content providers run here, never on
// the I/O threads that hold the connections (server_core.h). Workers start on demand up to a
// maximum and exit after idling a while, so threads follow requests in progress.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>

namespace kb::hub::server {

class WorkerPool {
 public:
  WorkerPool(size_t max_threads, std::chrono::seconds idle_exit);
  ~WorkerPool();  // lets running jobs finish; queued ones are dropped
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void post(std::function<void()> job);

 private:
  void work();

  const size_t max_threads_;
  const std::chrono::seconds idle_exit_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable gone_;
  std::deque<std::function<void()>> jobs_;
  size_t threads_ = 0;
  size_t idle_ = 0;
  bool stopping_ = false;
};

}  // namespace kb::hub::server
