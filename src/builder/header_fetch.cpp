// Fetching pinned header archives into the shared cache (see header_fetch.h).
#include "builder/header_fetch.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

#include "builder/zip_extract.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/prelude.h"

namespace kb::builder {

using util::Status;

namespace {

// flock(2) on `<cache>/.<name>.lock`, held while this process fetches (or waits for) the entry.
class EntryLock {
 public:
  explicit EntryLock(int fd) : fd_(fd) {}
  ~EntryLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  EntryLock(const EntryLock&) = delete;
  EntryLock& operator=(const EntryLock&) = delete;

 private:
  int fd_;
};

bool has_headers(const HeaderFetch& fetch) {
  std::error_code ec;
  return fs::is_regular_file(fetch.entry / "include" / fetch.marker, ec);
}

// Leftovers of fetches that were interrupted (their process is gone: we hold the lock).
void remove_stale_temporaries(const fs::path& cache, const std::string& name) {
  std::error_code ec;
  std::string prefix = ".tmp-" + name + "-";
  for (auto it = fs::directory_iterator(cache, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (it->path().filename().string().rfind(prefix, 0) == 0) fs::remove_all(it->path(), ec);
  }
}

// Progress lines at each quarter of the download.
class QuarterNotes {
 public:
  QuarterNotes(const HeaderFetch& fetch, const std::function<void(const std::string&)>& note)
      : fetch_(fetch), note_(note) {}
  void operator()(std::uint64_t received, std::uint64_t total) {
    if (total == 0) total = fetch_.archive.size;
    if (total == 0 || !note_) return;
    int quarter = static_cast<int>(std::min<std::uint64_t>(4, received * 4 / total));
    if (quarter <= reported_) return;
    reported_ = quarter;
    note_(fetch_.dependency + ": downloaded " + mebibytes(received) + " of " + mebibytes(total));
  }

 private:
  const HeaderFetch& fetch_;
  const std::function<void(const std::string&)>& note_;
  int reported_ = 0;
};

Status download_verify_unpack(const HeaderFetch& fetch, const fs::path& temporary, const Downloader& download,
                              const std::function<void(const std::string&)>& note) {
  const HeaderArchive& archive = fetch.archive;
  if (note) {
    note(fetch.dependency + ": downloading " + archive.release + " (" + mebibytes(archive.size) + ") from " +
         archive.url);
  }
  fs::path file = temporary / "archive.zip";
  QuarterNotes quarters(fetch, note);
  auto downloaded = download(archive.url, file, [&](std::uint64_t received, std::uint64_t total) {
    quarters(received, total);
  });
  if (!downloaded) return std::move(downloaded).error();
  auto digest = util::hash_file(util::HashAlgorithm::sha256, file);
  if (!digest) return std::move(digest).error();
  std::string got = util::to_hex(*digest);
  if (got != archive.sha256) {
    return Error(ErrorKind::integrity, "The archive downloaded for `" + fetch.dependency +
                                           "` does not match its pinned SHA-256; nothing was extracted")
        .with_cause("from " + archive.url)
        .with_cause("expected sha256 " + archive.sha256)
        .with_cause("got sha256 " + got);
  }
  fs::path staged = temporary / "entry";
  auto count = extract_zip_directory(file, archive.include_dir, staged / "include");
  if (!count) return std::move(count).error();
  if (!fs::is_regular_file(staged / "include" / fetch.marker)) {
    return Error(ErrorKind::invalid, "The archive for `" + fetch.dependency + "` has no `" + archive.include_dir + "/" +
                                         fetch.marker + "`")
        .with_cause("from " + archive.url)
        .with_hint("the table's `include_dir` must name the archive's include directory");
  }
  nlohmann::json source = {{"format_version", 1},   {"dependency", fetch.dependency}, {"url", archive.url},
                           {"sha256", archive.sha256}, {"release", archive.release},     {"files", *count}};
  KB_TRY(util::write_file_atomic(staged / "source.json", source.dump(2) + "\n"));
  std::error_code ec;
  fs::remove(fetch.entry, ec);  // an empty directory left in its place (a non-empty one was refused)
  if (std::rename(staged.c_str(), fetch.entry.c_str()) != 0) {
    return Error(ErrorKind::io, "Cannot move the unpacked headers to `" + fetch.entry.string() + "`")
        .with_cause(std::strerror(errno));
  }
  util::sync_directory(fetch.entry.parent_path());
  if (note) {
    note(fetch.dependency + ": SHA-256 verified; " + std::to_string(*count) + " headers unpacked into `" +
         fetch.entry.string() + "`");
  }
  return {};
}

}  // namespace

std::string mebibytes(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

Status fetch_header_archive(const HeaderFetch& fetch, const Downloader& download,
                            const std::function<void(const std::string&)>& note) {
  fs::path cache = fetch.entry.parent_path();
  std::string name = fetch.entry.filename().string();
  std::error_code ec;
  fs::create_directories(cache, ec);
  if (ec) return Error(ErrorKind::io, "Cannot create the dependency cache `" + cache.string() + "`").with_cause(ec.message());
  fs::path lock_path = cache / ("." + name + ".lock");
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Error(ErrorKind::io, "Cannot open `" + lock_path.string() + "`").with_cause(std::strerror(errno));
  EntryLock lock(fd);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (note) note(fetch.dependency + ": waiting for another build that is fetching it into `" + fetch.entry.string() + "`");
    while (::flock(fd, LOCK_EX) != 0) {
      if (errno != EINTR) return Error(ErrorKind::io, "Cannot lock `" + lock_path.string() + "`").with_cause(std::strerror(errno));
    }
  }
  if (has_headers(fetch)) return {};  // another build fetched it while we waited
  remove_stale_temporaries(cache, name);
  if (fs::exists(fetch.entry, ec) && !fs::is_empty(fetch.entry, ec)) {
    return Error(ErrorKind::io, "The dependency cache entry `" + fetch.entry.string() + "` exists but has no `include/" +
                                    fetch.marker + "`")
        .with_hint("remove `" + fetch.entry.string() + "` and build again to fetch it");
  }
  fs::path temporary = cache / (".tmp-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(temporary, ec);
  fs::create_directories(temporary, ec);
  if (ec) return Error(ErrorKind::io, "Cannot create `" + temporary.string() + "`").with_cause(ec.message());
  Status done = download_verify_unpack(fetch, temporary, download, note);
  fs::remove_all(temporary, ec);
  return done;
}

}  // namespace kb::builder
