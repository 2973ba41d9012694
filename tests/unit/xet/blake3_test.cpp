// BLAKE3 against the official test vectors (data/blake3_vectors.json): plain and keyed hashes,
// extended output, and the same digests when the input arrives in uneven pieces.
#include "hub/xet/blake3.h"

#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "xet_test_support.h"

namespace kb::hub::xet {
namespace {
namespace KB_UNITY_ID {

using testing::hex;

struct Vectors {
  Blake3Key key{};
  nlohmann::json cases;
};

Vectors load_vectors() {
  auto json = nlohmann::json::parse(testing::read_bytes(testing::data_dir() / "blake3_vectors.json"));
  Vectors vectors;
  std::string key = json["key"];
  EXPECT_EQ(key.size(), 32u);
  std::memcpy(vectors.key.data(), key.data(), 32);
  vectors.cases = json["cases"];
  return vectors;
}

std::string input_of_length(size_t length) {
  std::string input(length, '\0');
  for (size_t i = 0; i < length; ++i) input[i] = char(i % 251);
  return input;
}

TEST(Blake3, MatchesOfficialVectorsPlainAndKeyedWithExtendedOutput) {
  Vectors vectors = load_vectors();
  ASSERT_GE(vectors.cases.size(), 30u);
  for (const auto& c : vectors.cases) {
    size_t length = c["input_len"];
    std::string input = input_of_length(length);
    std::string expected_hash = c["hash"];
    std::string expected_keyed = c["keyed_hash"];
    Blake3 plain;
    plain.update(input);
    EXPECT_EQ(hex(plain.digest(expected_hash.size() / 2)), expected_hash) << "input_len " << length;
    Blake3 keyed(vectors.key);
    keyed.update(input);
    EXPECT_EQ(hex(keyed.digest(expected_keyed.size() / 2)), expected_keyed) << "keyed, input_len " << length;
    // The 32-byte digest is the output's first 32 bytes.
    auto digest = blake3_keyed_hash(vectors.key, input);
    EXPECT_EQ(hex(std::string_view(reinterpret_cast<const char*>(digest.data()), 32)), expected_keyed.substr(0, 64));
  }
}

TEST(Blake3, DigestIsIndependentOfHowTheInputIsSplit) {
  Vectors vectors = load_vectors();
  for (const auto& c : vectors.cases) {
    size_t length = c["input_len"];
    std::string input = input_of_length(length);
    for (size_t piece : {1u, 63u, 64u, 65u, 1023u, 1024u, 4097u}) {
      Blake3 hasher(vectors.key);
      for (size_t at = 0; at < input.size(); at += piece) hasher.update(std::string_view(input).substr(at, piece));
      EXPECT_EQ(hasher.digest(), blake3_keyed_hash(vectors.key, input)) << "input_len " << length << ", piece " << piece;
    }
  }
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::xet
