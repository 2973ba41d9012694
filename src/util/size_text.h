// Byte sizes as people type them on command lines ("64M", "10GiB", "512"), and back.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kb::util {

// A byte count: decimal digits, then optionally one of K, M, G, T (powers of 1024, either
// case), then optionally "iB" or "B" after a suffix ("KiB", "KB") or "B" alone ("512B").
// Anything else (signs, fractions, spaces, other units, values beyond 2^64-1) is an
// ErrorKind::usage error naming the text.
Result<uint64_t> parse_size(std::string_view text);

// The shortest text parse_size reads back as `bytes`: the largest suffix that divides it
// exactly ("10G", "64M", "1536K", "1000", "0").
std::string format_size(uint64_t bytes);

}  // namespace kb::util
