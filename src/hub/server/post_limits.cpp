// Per-user posts per hour (see post_limits.h).
#include "hub/server/post_limits.h"

namespace kb::hub::server {

bool HourlyLimit::admit(const std::string& user, Clock::time_point now) {
  if (per_hour_ == 0) return true;
  std::lock_guard<std::mutex> lock(guard_);
  // Users whose posts all left the window are forgotten, so the map holds recent posters only.
  for (auto it = posts_.begin(); it != posts_.end();) {
    auto& times = it->second;
    while (!times.empty() && now - times.front() >= std::chrono::hours(1)) times.pop_front();
    it = times.empty() && it->first != user ? posts_.erase(it) : std::next(it);
  }
  auto& times = posts_[user];
  if (times.size() >= per_hour_) return false;
  times.push_back(now);
  return true;
}

}  // namespace kb::hub::server
