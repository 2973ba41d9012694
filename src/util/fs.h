// Filesystem helpers: whole-file reads, atomic writes (temp + fsync + rename), temp dirs,
// recursive listings with '/'-separated relative paths.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "util/result.h"

namespace kb::util {

namespace fs = std::filesystem;

Result<std::string> read_file(const fs::path& path);

// Writes `content` to a sibling temporary file, fsyncs it and renames it over `path`,
// so readers see either the old or the new content, never a mix.
Status write_file_atomic(const fs::path& path, std::string_view content);

// fsync of a directory (after renames inside it).
void sync_directory(const fs::path& dir);

// Relative paths ('/' separated, sorted byte-wise) of the regular files under `root`,
// following symlinks to regular files.
std::vector<std::string> list_files_recursive(const fs::path& root);

// A directory removed (recursively) when the object goes out of scope.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "kb");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

}  // namespace kb::util
