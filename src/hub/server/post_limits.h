// Per-user limits on posts per hour (docs/hub-security.md, "Storage quota"): discussions and
// benchmark runs. A sliding window of the last hour's post times per user, in this server
// process's memory (a restart starts every count afresh; the storage quota still bounds what a
// user stores). Memory: at most `per_hour` times per user who posted within the hour.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <string>

namespace kb::hub::server {

class HourlyLimit {
 public:
  using Clock = std::chrono::steady_clock;
  explicit HourlyLimit(size_t per_hour) : per_hour_(per_hour) {}

  // Counts a post of `user` at `now` and returns true, or returns false (nothing counted) when the
  // user already posted `per_hour` times in the hour before `now`. per_hour 0: no limit.
  bool admit(const std::string& user, Clock::time_point now = Clock::now());
  size_t per_hour() const { return per_hour_; }

 private:
  size_t per_hour_;
  std::mutex guard_;
  std::map<std::string, std::deque<Clock::time_point>> posts_;
};

}  // namespace kb::hub::server
