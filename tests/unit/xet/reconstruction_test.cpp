// Reconstruction plans: for whole files and byte ranges, fetching the planned xorb byte ranges and
// assembling the terms as hub-docs xet/download-protocol.md tells a client gives exactly the
// requested bytes; ranges past the end, unknown xorbs and inconsistent terms are refused.
#include "hub/xet/reconstruction.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "hub/xet/chunking.h"
#include "hub/xet/errors.h"
#include "xet_test_support.h"

namespace kb::hub::xet {
namespace {
namespace KB_UNITY_ID {

// Two xorbs and a file whose terms use both, one of them twice (deduplicated content).
struct World {
  std::map<MerkleHash, SerializedXorb> xorbs;
  std::vector<FileTerm> terms;
  std::string content;

  XorbLayoutLookup lookup() const {
    return [this](const MerkleHash& hash) -> util::Result<XorbInfo> {
      auto it = xorbs.find(hash);
      if (it == xorbs.end()) {
        util::Error error(util::ErrorKind::not_found, "unknown xorb");
        error.code = error_code::kUnknownXorb;
        return error;
      }
      return it->second.info;
    };
  }
};

World make_world() {
  World world;
  std::vector<SerializedXorb> built;
  for (uint64_t seed : {1u, 2u}) {
    std::string data = testing::generate(seed == 1 ? "random" : "low-entropy", 700'000, seed);
    XorbBuilder builder;
    Chunker chunker;
    auto add = [&](std::string_view chunk) { EXPECT_TRUE(builder.add_chunk(chunk)); };
    chunker.update(data, add);
    chunker.finish(add);
    built.push_back(builder.finish());
  }
  auto term = [&](const SerializedXorb& xorb, uint32_t begin, uint32_t end) {
    uint32_t size = 0;
    for (uint32_t c = begin; c < end; ++c) size += xorb.info.chunks[c].size;
    world.terms.push_back({xorb.info.hash, size, begin, end, std::nullopt});
    auto range = chunk_byte_range(xorb.info, begin, end);
    world.content += *decode_chunks(std::string_view(xorb.bytes).substr(range->start, range->end - range->start));
  };
  EXPECT_GE(built[0].info.chunks.size(), 6u);
  EXPECT_GE(built[1].info.chunks.size(), 6u);
  term(built[0], 0, 3);
  term(built[1], 1, 4);
  term(built[0], 2, 6);  // overlaps the first term's chunks: one merged fetch range
  for (auto& xorb : built) world.xorbs.emplace(xorb.info.hash, std::move(xorb));
  return world;
}

// What a client does with a plan: fetch each range, decode, assemble the terms, skip, truncate.
std::string assemble(const World& world, const Reconstruction& plan) {
  std::map<std::pair<MerkleHash, uint32_t>, std::string> chunks;
  for (const auto& fetch : plan.fetches) {
    const SerializedXorb& xorb = world.xorbs.at(fetch.xorb_hash);
    for (const auto& range : fetch.ranges) {
      for (uint32_t c = range.chunk_begin; c < range.chunk_end; ++c) {
        const XorbChunk& chunk = xorb.info.chunks[c];
        EXPECT_GE(chunk.offset, range.byte_start);
        EXPECT_LE(chunk.end() - 1, range.byte_end);
        auto bytes = decode_chunks(std::string_view(xorb.bytes).substr(chunk.offset, chunk.end() - chunk.offset));
        chunks[{fetch.xorb_hash, c}] = *bytes;
      }
    }
  }
  std::string out;
  for (const auto& term : plan.terms) {
    std::string term_bytes;
    for (uint32_t c = term.chunk_begin; c < term.chunk_end; ++c) term_bytes += chunks.at({term.xorb_hash, c});
    EXPECT_EQ(term_bytes.size(), term.unpacked_length);
    out += term_bytes;
  }
  return out.substr(plan.offset_into_first_range, plan.length);
}

TEST(plan_reconstruction, WholeFileUsesEveryTermAndMergesOverlappingRanges) {
  World world = make_world();
  auto plan = plan_reconstruction(world.terms, std::nullopt, world.lookup());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->file_size, world.content.size());
  EXPECT_EQ(plan->offset_into_first_range, 0u);
  ASSERT_EQ(plan->terms.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(plan->terms[i].chunk_begin, world.terms[i].chunk_begin);
    EXPECT_EQ(plan->terms[i].chunk_end, world.terms[i].chunk_end);
  }
  ASSERT_EQ(plan->fetches.size(), 2u);
  EXPECT_EQ(plan->fetches[0].xorb_hash, world.terms[0].xorb_hash);
  ASSERT_EQ(plan->fetches[0].ranges.size(), 1u);
  EXPECT_EQ(plan->fetches[0].ranges[0].chunk_begin, 0u);
  EXPECT_EQ(plan->fetches[0].ranges[0].chunk_end, 6u);
  EXPECT_EQ(assemble(world, *plan), world.content);
}

TEST(plan_reconstruction, ByteRangesGiveExactlyTheRequestedBytes) {
  World world = make_world();
  uint64_t size = world.content.size();
  uint64_t second_term = world.terms[0].unpacked_size;
  std::vector<RequestedRange> ranges = {
      {0, 0}, {1, 100}, {70'000, 300'000}, {second_term - 1, second_term}, {second_term, std::nullopt},
      {size - 1, size - 1}, {size - 10, size + 1000}, {12345, std::nullopt}};
  for (const auto& range : ranges) {
    auto plan = plan_reconstruction(world.terms, range, world.lookup());
    ASSERT_TRUE(plan.ok());
    uint64_t last = std::min(range.last.value_or(size - 1), size - 1);
    EXPECT_EQ(assemble(world, *plan), world.content.substr(range.first, last - range.first + 1))
        << range.first << "-" << last;
    // Trimmed to the chunks that hold the range: the skipped bytes lie in the first chunk.
    const ReconstructionTerm& first = plan->terms.front();
    EXPECT_LT(plan->offset_into_first_range, world.xorbs.at(first.xorb_hash).info.chunks[first.chunk_begin].size);
  }
  // A range starting exactly at a chunk boundary skips nothing.
  uint64_t second_chunk = world.xorbs.at(world.terms[0].xorb_hash).info.chunks[0].size;
  auto plan = plan_reconstruction(world.terms, RequestedRange{second_chunk, std::nullopt}, world.lookup());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->offset_into_first_range, 0u);
  EXPECT_EQ(plan->terms.front().chunk_begin, 1u);
  EXPECT_EQ(assemble(world, *plan), world.content.substr(second_chunk));
}

TEST(plan_reconstruction, RefusesARangeStartingAtOrAfterTheEnd) {
  World world = make_world();
  uint64_t size = world.content.size();
  for (RequestedRange range : {RequestedRange{size, std::nullopt}, RequestedRange{size + 5, size + 9},
                               RequestedRange{10, 5}}) {
    auto plan = plan_reconstruction(world.terms, range, world.lookup());
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.error().code, error_code::kRangeNotSatisfiable);
  }
  auto empty = plan_reconstruction({}, std::nullopt, world.lookup());
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->terms.empty());
}

TEST(plan_reconstruction, RefusesUnknownXorbsAndTermsThatDisagreeWithTheXorb) {
  World world = make_world();
  auto terms = world.terms;
  terms[1].xorb_hash[0] ^= 1;
  auto unknown = plan_reconstruction(terms, std::nullopt, world.lookup());
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, error_code::kUnknownXorb);
  terms = world.terms;
  terms[1].unpacked_size -= 1;
  auto wrong_size = plan_reconstruction(terms, std::nullopt, world.lookup());
  ASSERT_FALSE(wrong_size.ok());
  EXPECT_EQ(wrong_size.error().kind, util::ErrorKind::integrity);
  terms = world.terms;
  terms[2].chunk_end = 1000;
  auto outside = plan_reconstruction(terms, std::nullopt, world.lookup());
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.error().code, error_code::kChunkRangeOutOfBounds);
}

TEST(reconstruction_json, V1AndV2CarryTermsRangesAndUrlsInTheProtocolsShape) {
  World world = make_world();
  auto plan = plan_reconstruction(world.terms, RequestedRange{100, 500'000}, world.lookup());
  ASSERT_TRUE(plan.ok());
  auto url = [](const MerkleHash& hash, std::span<const FetchRange> ranges) {
    std::string out = "http://hub/xorbs/" + hash_to_string(hash) + "?ranges=";
    for (const auto& r : ranges) out += std::to_string(r.byte_start) + "-" + std::to_string(r.byte_end) + ",";
    return out;
  };
  auto v1 = nlohmann::json::parse(reconstruction_json_v1(*plan, url));
  EXPECT_EQ(v1["offset_into_first_range"], plan->offset_into_first_range);
  ASSERT_EQ(v1["terms"].size(), plan->terms.size());
  const auto& first = plan->terms[0];
  EXPECT_EQ(v1["terms"][0]["hash"], hash_to_string(first.xorb_hash));
  EXPECT_EQ(v1["terms"][0]["unpacked_length"], first.unpacked_length);
  EXPECT_EQ(v1["terms"][0]["range"]["start"], first.chunk_begin);
  EXPECT_EQ(v1["terms"][0]["range"]["end"], first.chunk_end);
  const auto& fetch = plan->fetches[0];
  const auto& info = v1["fetch_info"][hash_to_string(fetch.xorb_hash)];
  ASSERT_EQ(info.size(), fetch.ranges.size());
  EXPECT_EQ(info[0]["range"]["start"], fetch.ranges[0].chunk_begin);
  EXPECT_EQ(info[0]["url_range"]["start"], fetch.ranges[0].byte_start);
  EXPECT_EQ(info[0]["url_range"]["end"], fetch.ranges[0].byte_end);
  EXPECT_EQ(info[0]["url"], url(fetch.xorb_hash, std::span(&fetch.ranges[0], 1)));

  auto v2 = nlohmann::json::parse(reconstruction_json_v2(*plan, url));
  EXPECT_EQ(v2["terms"], v1["terms"]);
  const auto& entries = v2["xorbs"][hash_to_string(fetch.xorb_hash)];
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["url"], url(fetch.xorb_hash, fetch.ranges));
  EXPECT_EQ(entries[0]["ranges"][0]["chunks"]["end"], fetch.ranges[0].chunk_end);
  EXPECT_EQ(entries[0]["ranges"][0]["bytes"]["end"], fetch.ranges[0].byte_end);
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::xet
