// Reconstruction planning and its JSON bodies (hub-docs xet/download-protocol.md).
#include "hub/xet/reconstruction.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "hub/xet/errors.h"

namespace kb::hub::xet {
namespace {

util::Error range_not_satisfiable(uint64_t first, uint64_t file_size) {
  util::Error error(util::ErrorKind::invalid, "Requested range not satisfiable");
  error.code = error_code::kRangeNotSatisfiable;
  return std::move(error).with_cause("the range starts at byte " + std::to_string(first) + ", the file has " +
                                     std::to_string(file_size) + " bytes");
}

// The byte ranges covering `chunk_ranges` of a xorb, overlapping or adjacent ranges merged.
XorbFetch fetch_for(const MerkleHash& hash, const XorbInfo& xorb,
                    std::vector<std::pair<uint32_t, uint32_t>> chunk_ranges) {
  std::sort(chunk_ranges.begin(), chunk_ranges.end());
  XorbFetch fetch{hash, {}};
  for (const auto& [begin, end] : chunk_ranges) {
    if (!fetch.ranges.empty() && begin <= fetch.ranges.back().chunk_end) {
      fetch.ranges.back().chunk_end = std::max(fetch.ranges.back().chunk_end, end);
    } else {
      fetch.ranges.push_back({begin, end, 0, 0});
    }
  }
  for (auto& range : fetch.ranges) {
    range.byte_start = xorb.chunks[range.chunk_begin].offset;
    range.byte_end = xorb.chunks[range.chunk_end - 1].end() - 1;
  }
  return fetch;
}

}  // namespace

util::Result<Reconstruction> plan_reconstruction(std::span<const FileTerm> terms,
                                                 const std::optional<RequestedRange>& range,
                                                 const XorbLayoutLookup& lookup) {
  Reconstruction plan;
  for (const auto& term : terms) plan.file_size += term.unpacked_size;
  uint64_t first = 0;
  uint64_t last = plan.file_size;  // inclusive; only meaningful when file_size > 0
  if (range) {
    if (range->first >= plan.file_size) return range_not_satisfiable(range->first, plan.file_size);
    if (range->last && *range->last < range->first) return range_not_satisfiable(range->first, plan.file_size);
    first = range->first;
    last = std::min(range->last.value_or(plan.file_size - 1), plan.file_size - 1);
  } else if (plan.file_size == 0) {
    return plan;
  } else {
    last = plan.file_size - 1;
  }
  plan.length = last - first + 1;

  std::map<MerkleHash, XorbInfo> layouts;
  std::vector<MerkleHash> order;                                    // xorbs by first use
  std::map<MerkleHash, std::vector<std::pair<uint32_t, uint32_t>>> used;  // chunk ranges per xorb
  uint64_t term_start = 0;
  for (const auto& term : terms) {
    uint64_t term_end = term_start + term.unpacked_size;  // exclusive
    if (term_end <= first || term_start > last) {
      term_start = term_end;
      continue;
    }
    auto it = layouts.find(term.xorb_hash);
    if (it == layouts.end()) {
      auto layout = lookup(term.xorb_hash);
      if (!layout) return std::move(layout).error();
      it = layouts.emplace(term.xorb_hash, std::move(*layout)).first;
      order.push_back(term.xorb_hash);
    }
    const XorbInfo& xorb = it->second;
    auto bytes = chunk_byte_range(xorb, term.chunk_begin, term.chunk_end);
    if (!bytes) return std::move(bytes).error();
    uint64_t unpacked = 0;
    for (uint32_t c = term.chunk_begin; c < term.chunk_end; ++c) unpacked += xorb.chunks[c].size;
    if (unpacked != term.unpacked_size) {
      util::Error error(util::ErrorKind::integrity, "File term disagrees with its stored xorb");
      error.code = error_code::kShardVerificationFailed;
      return std::move(error).with_cause("chunks [" + std::to_string(term.chunk_begin) + ", " +
                                         std::to_string(term.chunk_end) + ") of xorb `" +
                                         hash_to_string(term.xorb_hash) + "` hold " + std::to_string(unpacked) +
                                         " bytes, the term says " + std::to_string(term.unpacked_size));
    }
    // Trim to the chunks that hold bytes of [first, last].
    uint32_t begin = term.chunk_begin;
    uint64_t begin_offset = term_start;  // file offset of chunk `begin`
    while (begin_offset + xorb.chunks[begin].size <= first) begin_offset += xorb.chunks[begin++].size;
    uint32_t end = begin;
    uint64_t end_offset = begin_offset;  // file offset just past chunk `end - 1`
    while (end < term.chunk_end && end_offset <= last) end_offset += xorb.chunks[end++].size;
    if (plan.terms.empty()) plan.offset_into_first_range = first - begin_offset;
    plan.terms.push_back({term.xorb_hash, begin, end, uint32_t(end_offset - begin_offset)});
    used[term.xorb_hash].emplace_back(begin, end);
    term_start = term_end;
  }

  for (const auto& hash : order) plan.fetches.push_back(fetch_for(hash, layouts[hash], used[hash]));
  return plan;
}

namespace {

nlohmann::json terms_json(const Reconstruction& reconstruction) {
  nlohmann::json terms = nlohmann::json::array();
  for (const auto& term : reconstruction.terms) {
    terms.push_back({{"hash", hash_to_string(term.xorb_hash)},
                     {"unpacked_length", term.unpacked_length},
                     {"range", {{"start", term.chunk_begin}, {"end", term.chunk_end}}}});
  }
  return terms;
}

}  // namespace

std::string reconstruction_json_v1(const Reconstruction& reconstruction, const FetchUrl& url) {
  nlohmann::json fetch_info = nlohmann::json::object();
  for (const auto& fetch : reconstruction.fetches) {
    nlohmann::json entries = nlohmann::json::array();
    for (const auto& range : fetch.ranges) {
      entries.push_back({{"range", {{"start", range.chunk_begin}, {"end", range.chunk_end}}},
                         {"url", url(fetch.xorb_hash, std::span<const FetchRange>(&range, 1))},
                         {"url_range", {{"start", range.byte_start}, {"end", range.byte_end}}}});
    }
    fetch_info[hash_to_string(fetch.xorb_hash)] = std::move(entries);
  }
  nlohmann::json body = {{"offset_into_first_range", reconstruction.offset_into_first_range},
                         {"terms", terms_json(reconstruction)},
                         {"fetch_info", std::move(fetch_info)}};
  return body.dump();
}

std::string reconstruction_json_v2(const Reconstruction& reconstruction, const FetchUrl& url) {
  nlohmann::json xorbs = nlohmann::json::object();
  for (const auto& fetch : reconstruction.fetches) {
    nlohmann::json ranges = nlohmann::json::array();
    for (const auto& range : fetch.ranges) {
      ranges.push_back({{"chunks", {{"start", range.chunk_begin}, {"end", range.chunk_end}}},
                        {"bytes", {{"start", range.byte_start}, {"end", range.byte_end}}}});
    }
    xorbs[hash_to_string(fetch.xorb_hash)] =
        nlohmann::json::array({{{"url", url(fetch.xorb_hash, fetch.ranges)}, {"ranges", std::move(ranges)}}});
  }
  nlohmann::json body = {{"offset_into_first_range", reconstruction.offset_into_first_range},
                         {"terms", terms_json(reconstruction)},
                         {"xorbs", std::move(xorbs)}};
  return body.dump();
}

}  // namespace kb::hub::xet
