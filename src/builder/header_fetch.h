// Fetching a pinned header archive (header_archives.h) into the shared dependency cache:
// download to a temporary directory beside the entry, check the SHA-256 before anything is
// extracted, unpack only the archive's include directory, then rename the finished entry into
// place, all under a lock on the cache entry so that concurrent builds (threads or processes)
// fetch it once. A cache entry is `<cache>/<name>/include/...` plus `source.json` (where it came
// from); an interrupted fetch leaves only a `.tmp-<name>-*` directory, removed by the next one.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "builder/download.h"
#include "builder/header_archives.h"
#include "util/result.h"

namespace kb::builder {

using Downloader = std::function<util::Status(const std::string& url, const std::filesystem::path& destination,
                                              const DownloadProgress& progress)>;

struct HeaderFetch {
  std::string dependency;         // "cutlass_3_8", for messages
  HeaderArchive archive;
  std::filesystem::path entry;    // the cache entry to create, e.g. <cache>/cutlass-3.8
  std::string marker;             // a header every tree has, relative to include/ ("cutlass/cutlass.h")
};

// Makes `fetch.entry` hold the archive's headers (or finds that another build already did).
// `note` receives progress lines (download size, quarters, the verified result).
util::Status fetch_header_archive(const HeaderFetch& fetch, const Downloader& download,
                                  const std::function<void(const std::string&)>& note);

// "5.1 MiB"
std::string mebibytes(std::uint64_t bytes);

}  // namespace kb::builder
