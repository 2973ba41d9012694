// Downloading one file over HTTP(S) with libcurl (the pinned header archives of header_fetch.h).
// Kept to what a pinned archive needs: GET, redirects within http(s), a progress callback, and
// errors that carry the HTTP status; integrity is the caller's SHA-256 check.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "util/result.h"

namespace kb::builder {

// Called as bytes arrive: (received, total); total is 0 when the server did not say.
using DownloadProgress = std::function<void(std::uint64_t, std::uint64_t)>;

// Writes the body of `url` to `destination` (created or truncated). A transport failure is an
// ErrorKind::network error; an HTTP error answer is one too, with `status` set.
util::Status download_file(const std::string& url, const std::filesystem::path& destination,
                           const DownloadProgress& progress);

}  // namespace kb::builder
