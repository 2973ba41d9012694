// Records as files under a root directory (see directory_records.h).
#include "hub/storage/directory_records.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <thread>

#include "util/fs.h"
#include "util/strings.h"

namespace kb::hub::storage {

namespace fs = std::filesystem;

namespace {

util::Error io_error(const std::string& what, const std::string& path, int error_number) {
  return util::Error(util::ErrorKind::io, what + " `" + path + "`").with_cause(std::strerror(error_number));
}

bool starts_with(const std::string& text, std::string_view prefix) { return text.rfind(prefix, 0) == 0; }
bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Folders (first segment) that hold no records at all.
bool outside_records(const std::string& path) {
  std::string first = path.substr(0, path.find('/'));
  return first == "objects" || first == "tmp" || first == "locks";
}

bool hidden_segment(const std::string& path) {
  for (const auto& segment : util::split(path, '/')) {
    if (!segment.empty() && segment[0] == '.') return true;
  }
  return false;
}

std::string join(const std::string& dir, const std::string& name) { return dir.empty() ? name : dir + "/" + name; }

util::Status write_all(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return io_error("Cannot write", path, errno);
    data.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

std::string random_suffix() {
  static thread_local std::mt19937_64 generator{std::random_device{}()};
  return std::to_string(generator());
}

}  // namespace

struct DirectoryRecords::Held {
  std::mutex mutex;
  std::atomic<std::thread::id> owner{};
  int depth = 0;  // written by the owner only
  int fd = -1;
};

namespace {

class DirectoryLock final : public RecordLock {
 public:
  explicit DirectoryLock(std::shared_ptr<DirectoryRecords::Held> held) : held_(std::move(held)) {}
  ~DirectoryLock() override { (void)release(); }
  util::Status release() override {
    if (!held_) return {};
    if (--held_->depth == 0) {
      ::flock(held_->fd, LOCK_UN);
      ::close(held_->fd);
      held_->fd = -1;
      held_->owner = std::thread::id();
      held_->mutex.unlock();
    }
    held_.reset();
    return {};
  }

 private:
  std::shared_ptr<DirectoryRecords::Held> held_;
};

}  // namespace

DirectoryRecords::DirectoryRecords(fs::path root) : root_(std::move(root)) {}

bool DirectoryRecords::is_record_path(const std::string& path) {
  if (path.empty() || outside_records(path) || hidden_segment(path)) return false;
  std::string name = path.substr(path.rfind('/') + 1);
  if (name == "lock" || path == "accounts.lock") return false;
  // Xorb bodies are blobs; their layouts (.index) are records.
  if (starts_with(path, "xet/xorbs/") && !ends_with(path, ".index")) return false;
  return true;
}

util::Result<std::optional<std::string>> DirectoryRecords::read(const std::string& path) const {
  fs::path file = root_ / path;
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<std::string>();
    return io_error("Cannot read", file.string(), errno);
  }
  std::string out;
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int error_number = errno;
      ::close(fd);
      if (error_number == EISDIR) return std::optional<std::string>();  // a folder is no record
      return io_error("Cannot read", file.string(), error_number);
    }
    if (n == 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return std::optional<std::string>(std::move(out));
}

util::Status DirectoryRecords::write(const std::string& path, std::string_view data) {
  return util::write_file_atomic(root_ / path, data);
}

util::Result<bool> DirectoryRecords::create(const std::string& path, std::string_view data) {
  fs::path file = root_ / path;
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (fs::exists(file, ec)) return false;
  fs::path temp = file.parent_path() / ("." + file.filename().string() + ".tmp-" + random_suffix());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return io_error("Cannot write", file.string(), errno);
  auto written = write_all(fd, data, file.string());
  if (written && ::fsync(fd) != 0) written = io_error("Cannot write", file.string(), errno);
  ::close(fd);
  if (!written) {
    fs::remove(temp, ec);
    return std::move(written).error();
  }
  // link() fails when the name exists: of two creators, one wins and the other sees its record.
  int linked = ::link(temp.c_str(), file.c_str());
  int error_number = errno;
  fs::remove(temp, ec);
  if (linked != 0) {
    if (error_number == EEXIST) return false;
    return io_error("Cannot write", file.string(), error_number);
  }
  util::sync_directory(file.parent_path());
  return true;
}

util::Status DirectoryRecords::append(const std::string& path, std::string_view data) {
  fs::path file = root_ / path;
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return io_error("Cannot append to", file.string(), errno);
  auto written = write_all(fd, data, file.string());
  if (written && ::fsync(fd) != 0) written = io_error("Cannot append to", file.string(), errno);
  ::close(fd);
  return written;
}

util::Result<bool> DirectoryRecords::exists(const std::string& path) const {
  std::error_code ec;
  return fs::is_regular_file(root_ / path, ec);
}

namespace {

// A folder counts as one when some record lies beneath it (an empty folder holds nothing, as in
// a database): stops at the first.
bool holds_record(const fs::path& dir, const std::string& relative) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string child = join(relative, entry.path().filename().string());
    std::error_code inner;
    if (entry.is_directory(inner)) {
      if (!outside_records(child) && !hidden_segment(child) && holds_record(entry.path(), child)) return true;
    } else if (entry.is_regular_file(inner) && DirectoryRecords::is_record_path(child)) {
      return true;
    }
  }
  return false;
}

}  // namespace

util::Result<std::vector<std::string>> DirectoryRecords::list(const std::string& dir) const {
  std::vector<std::string> out;
  std::error_code ec;
  fs::directory_iterator it(dir.empty() ? root_ : root_ / dir, ec);
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory) return out;
    return util::Error(util::ErrorKind::io, "Cannot list `" + (root_ / dir).string() + "`").with_cause(ec.message());
  }
  for (const auto& entry : it) {
    std::string name = entry.path().filename().string();
    std::string child = join(dir, name);
    std::error_code inner;
    if (entry.is_directory(inner)) {
      if (!outside_records(child) && !hidden_segment(child) && holds_record(entry.path(), child)) out.push_back(name);
    } else if (entry.is_regular_file(inner) && is_record_path(child)) {
      out.push_back(name);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

util::Status DirectoryRecords::remove(const std::string& path) {
  fs::path file = root_ / path;
  if (::unlink(file.c_str()) != 0 && errno != ENOENT && errno != ENOTDIR) {
    return io_error("Cannot remove", file.string(), errno);
  }
  return {};
}

util::Status DirectoryRecords::remove_tree(const std::string& dir) {
  std::error_code ec;
  fs::remove_all(root_ / dir, ec);
  if (ec) return util::Error(util::ErrorKind::io, "Cannot remove `" + (root_ / dir).string() + "`").with_cause(ec.message());
  return {};
}

util::Status DirectoryRecords::walk(const std::string& dir,
                                    const std::function<util::Status(const std::string& path)>& visit) const {
  // Sorted like the database's walk: byte order of the whole path.
  std::vector<std::string> paths;
  fs::path base = dir.empty() ? root_ : root_ / dir;
  for (const auto& relative : util::list_files_recursive(base)) {
    std::string path = join(dir, relative);
    if (is_record_path(path)) paths.push_back(std::move(path));
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) KB_TRY(visit(path));
  return {};
}

util::Result<std::unique_ptr<RecordLock>> DirectoryRecords::lock(const std::string& name) {
  std::shared_ptr<Held> held;
  {
    std::lock_guard<std::mutex> guard(held_guard_);
    auto& slot = held_[name];
    if (!slot) slot = std::make_shared<Held>();
    held = slot;
  }
  if (held->owner.load() == std::this_thread::get_id()) {
    ++held->depth;  // nested: this thread holds it already
    return std::unique_ptr<RecordLock>(std::make_unique<DirectoryLock>(std::move(held)));
  }
  held->mutex.lock();
  fs::path file = root_ / name;
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || ::flock(fd, LOCK_EX) != 0) {
    int error_number = errno;
    if (fd >= 0) ::close(fd);
    held->mutex.unlock();
    return io_error("Cannot lock", file.string(), error_number);
  }
  held->fd = fd;
  held->depth = 1;
  held->owner = std::this_thread::get_id();
  return std::unique_ptr<RecordLock>(std::make_unique<DirectoryLock>(std::move(held)));
}

}  // namespace kb::hub::storage
