// Shared by the Xet unit tests: the deterministic input generator of
// data/refresh-hf-xet-reference (so hf_xet's hashes of the same bytes can be checked here), and
// readers of the committed reference data.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace kb::hub::xet::testing {

inline std::filesystem::path data_dir() { return std::filesystem::path(KB_TEST_DATA_DIR) / "unit/xet/data"; }

inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// splitmix64 outputs, each written little-endian (refresh-hf-xet-reference's splitmix64_bytes).
inline std::string splitmix64_bytes(uint64_t seed, size_t size) {
  std::string out;
  out.reserve(size + 8);
  uint64_t state = seed;
  while (out.size() < size) {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    for (int i = 0; i < 8; ++i) out.push_back(char((z >> (8 * i)) & 0xFF));
  }
  out.resize(size);
  return out;
}

inline std::string generate(const std::string& kind, size_t size, uint64_t seed) {
  if (kind == "random") return splitmix64_bytes(seed, size);
  if (kind == "zeros") return std::string(size, '\0');
  if (kind == "low-entropy") {
    std::string bytes = splitmix64_bytes(seed, size);
    for (char& c : bytes) c = "acgt"[uint8_t(c) & 3];
    return bytes;
  }
  throw std::runtime_error("unknown kind " + kind);
}

inline std::string hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 0xF]);
  }
  return out;
}

}  // namespace kb::hub::xet::testing
