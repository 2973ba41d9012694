// File reconstruction answers (hub-docs xet/download-protocol.md, xet/api.md): from a file's terms
// and the layouts of the xorbs they reference, the terms covering a byte range, how many bytes of
// the first one to skip, and which byte ranges of which xorbs to fetch (overlapping or adjacent
// chunk ranges of one xorb merged), rendered as the v1 (`fetch_info`) or v2 (`xorbs`) JSON body.
// Pure: URLs come from the caller.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hub/xet/hashing.h"
#include "hub/xet/shard.h"
#include "hub/xet/xorb.h"
#include "util/result.h"

namespace kb::hub::xet {

struct ReconstructionTerm {
  MerkleHash xorb_hash{};
  uint32_t chunk_begin = 0;
  uint32_t chunk_end = 0;  // exclusive
  uint32_t unpacked_length = 0;
  bool operator==(const ReconstructionTerm&) const = default;
};

// Chunks [chunk_begin, chunk_end) of a xorb live in its bytes [byte_start, byte_end] (inclusive
// end, as in an HTTP Range header).
struct FetchRange {
  uint32_t chunk_begin = 0;
  uint32_t chunk_end = 0;
  uint64_t byte_start = 0;
  uint64_t byte_end = 0;
  bool operator==(const FetchRange&) const = default;
};

struct XorbFetch {
  MerkleHash xorb_hash{};
  std::vector<FetchRange> ranges;  // ascending, disjoint, not adjacent
};

struct Reconstruction {
  uint64_t file_size = 0;
  uint64_t offset_into_first_range = 0;  // bytes of the first term's output to skip
  uint64_t length = 0;                   // bytes the client keeps after skipping
  std::vector<ReconstructionTerm> terms;
  std::vector<XorbFetch> fetches;        // in order of first use
};

// A requested byte range: `first` and `last` inclusive (HTTP Range "bytes=first-last"; no `last`
// means to the end). `last` past the end is clamped; `first` at or after the end is an error with
// code kRangeNotSatisfiable (HTTP 416).
struct RequestedRange {
  uint64_t first = 0;
  std::optional<uint64_t> last;
};

// The layout of a stored xorb (XorbInfo from parse_xorb or read_xorb_footer).
using XorbLayoutLookup = std::function<util::Result<XorbInfo>(const MerkleHash& xorb_hash)>;

// Terms are trimmed to the chunks that hold the requested bytes. Errors: kUnknownXorb,
// kChunkRangeOutOfBounds, kShardVerificationFailed when a term's unpacked size disagrees with the
// stored chunks, kRangeNotSatisfiable.
util::Result<Reconstruction> plan_reconstruction(std::span<const FileTerm> terms,
                                                 const std::optional<RequestedRange>& range,
                                                 const XorbLayoutLookup& lookup);

// The URL a client fetches `ranges` of `xorb_hash` from (one range in v1, all of them in v2).
using FetchUrl = std::function<std::string(const MerkleHash& xorb_hash, std::span<const FetchRange> ranges)>;
// {"offset_into_first_range", "terms": [{"hash","unpacked_length","range":{"start","end"}}],
//  "fetch_info": {hash: [{"range":{"start","end"},"url","url_range":{"start","end"}}]}}
std::string reconstruction_json_v1(const Reconstruction& reconstruction, const FetchUrl& url);
// Same terms, with "xorbs": {hash: [{"url", "ranges": [{"chunks":{…},"bytes":{…}}]}]}.
std::string reconstruction_json_v2(const Reconstruction& reconstruction, const FetchUrl& url);

}  // namespace kb::hub::xet
