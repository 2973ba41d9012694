// The gear table of the Xet content-defined chunker (values in gear_table.cpp).
#pragma once

#include <array>
#include <cstdint>

namespace kb::hub::xet {

extern const std::array<uint64_t, 256> kGearTable;

}  // namespace kb::hub::xet
