// The table of pinned release archives for header-only build dependencies
// (`src/builder/data/header-archives.json`, embedded): per dependency name (`cutlass_3_8`, ...)
// either an archive (URL, SHA-256, size, the include directory inside it) or the reason none is
// reachable. KERNEL_BUILDER_HEADER_ARCHIVES=<file> replaces the embedded table (tests serve their
// own archives from a local HTTP server).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kb::builder {

struct HeaderArchive {
  std::string url;
  std::string sha256;       // lower-case hex, checked before anything is extracted
  std::uint64_t size = 0;   // bytes, for progress and a sanity bound
  std::string include_dir;  // the directory inside the archive whose files become include/
  std::string release;      // what it is, for messages ("nvidia-cutlass 3.8.0.0 (PyPI wheel)")
};

struct HeaderArchiveEntry {
  std::optional<HeaderArchive> archive;
  std::string unavailable;  // why there is no archive (when `archive` is empty)
};

struct HeaderArchiveTable {
  std::map<std::string, HeaderArchiveEntry> entries;
  std::string origin;  // "the built-in table" or the override file, for messages

  const HeaderArchiveEntry* find(const std::string& dependency) const;
};

// Parses a table of the header-archives.json format (format_version 1); `origin` names it in errors.
util::Result<HeaderArchiveTable> parse_header_archive_table(std::string_view json, const std::string& origin);

// The embedded table, or the file KERNEL_BUILDER_HEADER_ARCHIVES names (`override_file` non-empty).
util::Result<HeaderArchiveTable> load_header_archive_table(const std::string& override_file);

}  // namespace kb::builder
