// Machine-readable codes of the Xet format errors (util::Error::code), so the server maps them to
// HTTP answers without reading message text. Kinds: malformed input is ErrorKind::invalid, a hash
// that does not match is ErrorKind::integrity, a referenced object that is missing is not_found.
#pragma once

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
inline constexpr const char* kRangeNotSatisfiable = "XetRangeNotSatisfiable";      // a byte range that starts at or after the file's end

}  // namespace kb::hub::xet::error_code
