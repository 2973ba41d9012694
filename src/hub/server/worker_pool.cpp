// Worker threads started on demand (worker_pool.h).
#include "hub/server/worker_pool.h"

#include <cstdio>
#include <system_error>
#include <thread>

namespace kb::hub::server {

WorkerPool::WorkerPool(size_t max_threads, std::chrono::seconds idle_exit)
    : max_threads_(max_threads), idle_exit_(idle_exit) {}

WorkerPool::~WorkerPool() {
  std::unique_lock lock(mutex_);
  stopping_ = true;
  jobs_.clear();
  wake_.notify_all();
  gone_.wait(lock, [this] { return threads_ == 0; });
}

void WorkerPool::post(std::function<void()> job) {
  std::unique_lock lock(mutex_);
  if (stopping_) return;
  jobs_.push_back(std::move(job));
  if (jobs_.size() > idle_ && threads_ < max_threads_) {
    try {
      std::thread([this] { work(); }).detach();
      ++threads_;
    } catch (const std::system_error& e) {
      // Out of threads: the job waits for a running worker.
      std::fprintf(stderr, "warning: cannot start a worker thread (%s); %zu running\n", e.what(), threads_);
    }
  }
  wake_.notify_one();
}

void WorkerPool::work() {
  std::unique_lock lock(mutex_);
  while (true) {
    if (jobs_.empty() && !stopping_) {
      ++idle_;
      bool woken = wake_.wait_for(lock, idle_exit_, [this] { return !jobs_.empty() || stopping_; });
      --idle_;
      if (!woken) break;
    }
    if (jobs_.empty() || stopping_) break;
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    lock.lock();
  }
  --threads_;
  gone_.notify_all();
}

}  // namespace kb::hub::server
