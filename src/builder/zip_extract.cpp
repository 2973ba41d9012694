// minizip extraction of one directory of a zip archive (see zip_extract.h). minizip (Debian
// libminizip, on zlib) rather than libarchive: the archives are zip only, and its one
// dependency, zlib, is on every machine the builder runs on.
#include "builder/zip_extract.h"

#include <minizip/unzip.h>
#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <vector>

#include "util/prelude.h"

namespace kb::builder {

namespace {

struct ZipCloser {
  void operator()(void* zip) const { unzClose(static_cast<unzFile>(zip)); }
};

// The path of an entry below `prefix/`, or empty when the entry is elsewhere (or the directory itself).
std::string below(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() + 1 || name.compare(0, prefix.size(), prefix) != 0 || name[prefix.size()] != '/') {
    return {};
  }
  return name.substr(prefix.size() + 1);
}

bool escapes(const std::string& relative) {
  if (relative.empty() || relative.front() == '/' || relative.find('\\') != std::string::npos) return true;
  for (const auto& part : fs::path(relative)) {
    if (part == "..") return true;
  }
  return false;
}

Error archive_error(const fs::path& archive, const std::string& what) {
  return Error(ErrorKind::invalid, "Cannot unpack `" + archive.string() + "`").with_cause(what);
}

}  // namespace

Result<std::size_t> extract_zip_directory(const fs::path& archive, const std::string& directory,
                                          const fs::path& destination) {
  std::unique_ptr<void, ZipCloser> zip(unzOpen64(archive.c_str()));
  if (!zip) return archive_error(archive, "not a zip archive");
  std::error_code ec;
  fs::create_directories(destination, ec);
  if (ec) return Error(ErrorKind::io, "Cannot create `" + destination.string() + "`").with_cause(ec.message());
  std::size_t written = 0;
  std::vector<char> buffer(1 << 16);
  for (int status = unzGoToFirstFile(zip.get()); status != UNZ_END_OF_LIST_OF_FILE; status = unzGoToNextFile(zip.get())) {
    if (status != UNZ_OK) return archive_error(archive, "unreadable directory of entries");
    unz_file_info64 info;
    char name_buffer[4096];
    if (unzGetCurrentFileInfo64(zip.get(), &info, name_buffer, sizeof name_buffer, nullptr, 0, nullptr, 0) != UNZ_OK) {
      return archive_error(archive, "unreadable entry");
    }
    if (info.size_filename >= sizeof name_buffer) return archive_error(archive, "an entry name is too long");
    std::string name(name_buffer, info.size_filename);
    std::string relative = below(name, directory);
    if (relative.empty()) continue;
    if (relative.back() == '/') continue;  // a directory entry: created with its files
    if (escapes(relative)) return archive_error(archive, "entry `" + name + "` points outside its directory");
    unsigned file_type = (info.external_fa >> 16) & S_IFMT;
    if (file_type == S_IFLNK) return archive_error(archive, "entry `" + name + "` is a symbolic link");
    fs::path target = destination / relative;
    fs::create_directories(target.parent_path(), ec);
    if (ec) return Error(ErrorKind::io, "Cannot create `" + target.parent_path().string() + "`").with_cause(ec.message());
    if (unzOpenCurrentFile(zip.get()) != UNZ_OK) return archive_error(archive, "cannot read entry `" + name + "`");
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    int read = 0;
    while ((read = unzReadCurrentFile(zip.get(), buffer.data(), static_cast<unsigned>(buffer.size()))) > 0) {
      out.write(buffer.data(), read);
    }
    int closed = unzCloseCurrentFile(zip.get());
    if (read < 0 || closed == UNZ_CRCERROR || closed != UNZ_OK) {
      return archive_error(archive, "entry `" + name + "` is corrupt (" + (closed == UNZ_CRCERROR ? "CRC-32 mismatch" : "inflate error") + ")");
    }
    out.close();
    if (!out) return Error(ErrorKind::io, "Cannot write `" + target.string() + "`");
    ++written;
  }
  return written;
}

}  // namespace kb::builder
