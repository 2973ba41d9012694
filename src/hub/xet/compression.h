// Chunk compression of the xorb format: LZ4 (the LZ4 frame format, as xet-core's lz4_flex frame
// encoder writes it; liblz4's lz4frame) and byte grouping 4 (bytes regrouped by position mod 4,
// then LZ4). Decompression is bounded by the size the chunk header declares.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kb::hub::xet {

std::string lz4_compress(std::string_view data);
// Exactly one LZ4 frame that decodes to exactly `expected_size` bytes; nullopt otherwise.
std::optional<std::string> lz4_decompress(std::string_view frame, size_t expected_size);

// [A1 A2 A3 A4 B1 B2 …] -> [A1 B1 … A2 B2 … A3 B3 … A4 B4 …]; the 1-3 bytes of a last partial
// group go to the first groups.
std::string byte_group4(std::string_view data);
std::string byte_ungroup4(std::string_view grouped);

}  // namespace kb::hub::xet
