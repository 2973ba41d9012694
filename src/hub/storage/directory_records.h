// The records of a Hub kept as files under its root directory (backend.h): the embedded default.
// Every record is the file at <root>/<path>, byte for byte what earlier versions wrote: `write`
// is util::write_file_atomic (temporary + fsync + rename), `create` links a fsynced temporary into
// place (fails when a file is there), `append` writes with O_APPEND and fsyncs.
// What under a root is not a record, and so never listed or walked:
//   - names starting with '.' (write_file_atomic's temporaries),
//   - lock files: `lock(name)` flocks the file <root>/<name> (so RepoStore's <repo dir>/lock and
//     accounts.lock are the files they always were), and lock names end in "lock",
//   - bulk bytes (BlobStore): objects/, tmp/, and the xorb bodies in xet/xorbs/ (their .index
//     files are records).
// Locks are an in-process mutex plus flock(), so they hold between threads and between server
// processes on one machine; a thread may take a lock it holds again (they nest). shared() is
// false: nothing changes the files but this process and the administrative commands on one
// machine, which the stores' caches already account for.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "hub/storage/backend.h"

namespace kb::hub::storage {

class DirectoryRecords final : public RecordStore {
 public:
  explicit DirectoryRecords(std::filesystem::path root);

  const std::filesystem::path& root() const { return root_; }
  // True for a path under a root that holds a record (see above): what walk() visits.
  static bool is_record_path(const std::string& path);

  util::Result<std::optional<std::string>> read(const std::string& path) const override;
  util::Status write(const std::string& path, std::string_view data) override;
  util::Result<bool> create(const std::string& path, std::string_view data) override;
  util::Status append(const std::string& path, std::string_view data) override;
  util::Result<bool> exists(const std::string& path) const override;
  util::Result<std::vector<std::string>> list(const std::string& dir) const override;
  util::Status remove(const std::string& path) override;
  util::Status remove_tree(const std::string& dir) override;
  util::Status walk(const std::string& dir,
                    const std::function<util::Status(const std::string& path)>& visit) const override;
  util::Result<std::unique_ptr<RecordLock>> lock(const std::string& name) override;
  bool shared() const override { return false; }

  struct Held;  // one lock name's mutex, owner thread, depth and flocked descriptor

 private:
  std::filesystem::path root_;
  std::mutex held_guard_;
  std::map<std::string, std::shared_ptr<Held>> held_;
};

}  // namespace kb::hub::storage
