// Machine-readable codes of the Xet format errors (util::Error::code), so the server maps them to
// HTTP answers without reading message text. Kinds: malformed input is ErrorKind::invalid, a hash
// that does not match is ErrorKind::integrity, a referenced object that is missing is not_found.
#pragma once

#include <cstdint>
#include <string>

#include "util/result.h"

namespace kb::hub::xet::error_code {

inline constexpr const char* kMalformedHash = "XetMalformedHash";            // not 64 lowercase hex
inline constexpr const char* kMalformedXorb = "XetMalformedXorb";            // framing, version, scheme, sizes, decompression
inline constexpr const char* kXorbTooLarge = "XetXorbTooLarge";              // serialized size over kMaxXorbSize
inline constexpr const char* kXorbHashMismatch = "XetXorbHashMismatch";      // content does not hash to its name
inline constexpr const char* kMalformedShard = "XetMalformedShard";          // framing, magic, versions, bookends, flags
inline constexpr const char* kShardTooLarge = "XetShardTooLarge";            // serialized size over kMaxShardSize
inline constexpr const char* kShardVerificationFailed = "XetShardVerificationFailed";  // a range/file hash or size that does not match
inline constexpr const char* kUnknownXorb = "XetUnknownXorb";                // a shard or file references a xorb the store lacks
inline constexpr const char* kChunkRangeOutOfBounds = "XetChunkRangeOutOfBounds";  // a term's chunk range past the xorb's end
inline constexpr const char* kShardTooCostly = "XetShardTooCostly";          // verifying it would cost more than its size allows
inline constexpr const char* kRangeNotSatisfiable = "XetRangeNotSatisfiable";      // a byte range that starts at or after the file's end

}  // namespace kb::hub::xet::error_code

namespace kb::hub::xet {

// "<What> too large" (ErrorKind::invalid with `code`): an input over its size limit, refused
// before it is read.
inline util::Error too_large(const std::string& what, const char* code, uint64_t size, uint64_t limit) {
  util::Error error(util::ErrorKind::invalid, what + " too large");
  error.code = code;
  return std::move(error).with_cause(std::to_string(size) + " bytes, the limit is " + std::to_string(limit));
}

}  // namespace kb::hub::xet
