// libFuzzer target for the Xet object parsers kernel-hub runs on uploads (hub/xet): the first byte
// picks xorb parsing, footer reading, chunk decoding or shard parsing + upload verification; the
// rest is the object. Nothing may crash, hang or trip the sanitizers, and what a parser accepts
// must hold together (checked here, abort otherwise):
// - an accepted xorb's chunks tile [0, chunks_size), decode to unpacked_size bytes whose chunk
//   hashes are the parsed ones, and rebuilt with XorbBuilder have the same xorb hash;
// - a layout read from a footer frames the same chunks parse_xorb finds;
// - an accepted shard survives serialize -> parse unchanged, and verifying it against xorbs
//   that hold whatever its terms reference never crashes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "hub/xet/shard.h"
#include "hub/xet/xorb.h"

namespace {

using namespace kb::hub::xet;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "invariant broken: %s\n", what);
  std::abort();
}

void check_xorb(std::string_view bytes) {
  auto xorb = parse_xorb(bytes);
  if (!xorb) return;
  uint64_t offset = 0;
  uint64_t unpacked = 0;
  for (const auto& chunk : xorb->chunks) {
    if (chunk.offset != offset) fail("chunks do not tile the xorb");
    offset = chunk.end();
    unpacked += chunk.size;
  }
  if (offset != xorb->chunks_size || unpacked != xorb->unpacked_size) fail("xorb sizes");
  auto decoded = decode_chunks(bytes.substr(0, xorb->chunks_size));
  if (!decoded || decoded->size() != xorb->unpacked_size) fail("accepted xorb does not decode");
  if (xorb->chunks.size() > kMaxBuiltXorbChunks) return;
  XorbBuilder builder(true);
  size_t at = 0;
  for (const auto& chunk : xorb->chunks) {
    std::string_view raw = std::string_view(*decoded).substr(at, chunk.size);
    if (chunk_hash(raw) != chunk.hash) fail("chunk hash");
    if (!builder.add_chunk(raw)) fail("rebuilt xorb exceeds the limits");
    at += chunk.size;
  }
  if (builder.finish().info.hash != xorb->hash) fail("rebuilt xorb hash");
}

void check_footer(std::string_view bytes) {
  auto layout = read_xorb_footer(bytes);
  if (!layout) return;
  if (layout->chunks_size > bytes.size()) fail("footer layout past the end");
  for (size_t i = 0; i < layout->chunks.size(); ++i) {
    auto range = chunk_byte_range(*layout, uint32_t(i), uint32_t(i + 1));
    if (!range || range->end > layout->chunks_size) fail("footer chunk range");
  }
}

void check_shard(std::string_view bytes) {
  auto shard = parse_shard(bytes);
  if (!shard) return;
  auto again = parse_shard(serialize_shard(*shard));
  if (!again || !(*again == *shard)) fail("shard does not survive serialize -> parse");
  // Xorbs holding exactly what the terms reference (chunk sizes from the terms, hashes fixed).
  std::map<MerkleHash, std::vector<ChunkHashAndSize>> xorbs;
  for (const auto& file : shard->files) {
    for (const auto& term : file.terms) {
      auto& chunks = xorbs[term.xorb_hash];
      if (chunks.size() < term.chunk_end && term.chunk_end <= 4096) chunks.resize(term.chunk_end, {MerkleHash{}, 1});
    }
  }
  (void)verify_uploaded_shard(*shard, [&](const MerkleHash& hash) -> kb::util::Result<std::vector<ChunkHashAndSize>> {
    auto it = xorbs.find(hash);
    if (it == xorbs.end()) return kb::util::Error(kb::util::ErrorKind::not_found, "unknown xorb");
    return it->second;
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0:
      check_xorb(bytes);
      break;
    case 1:
      check_footer(bytes);
      break;
    case 2:
      (void)decode_chunks(bytes);
      break;
    case 3:
      check_shard(bytes);
      break;
  }
  return 0;
}
