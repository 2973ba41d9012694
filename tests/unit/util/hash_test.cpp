#include "util/hash.h"

#include <gtest/gtest.h>

using namespace kb::util;

TEST(hash_bytes, MatchesTheSpecTestVectors) {
  EXPECT_EQ(base64_encode(hash_bytes(HashAlgorithm::sha256, "hello world")),
            "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek=");
  EXPECT_EQ(base64_encode(hash_bytes(HashAlgorithm::sha512, "hello world")),
            "MJ7MSJwS1utMxA9QyQLytNDtd+5RGnx6m808qG1M2G+YndNbxf9JlnDaNCVbRbDP2DDoH2Bdz33FVC6TrpzXbw==");
}

TEST(git_blob_sha1, MatchesGitHashObject) {
  // `printf 'hello\n' | git hash-object --stdin`
  EXPECT_EQ(git_blob_sha1("hello\n"), "ce013625030ba8dba906f756967f9e9ca394464a");
  EXPECT_EQ(git_blob_sha1(""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
}

TEST(base64_decode, RoundTrips) {
  for (const std::string& s : std::vector<std::string>{"", "a", "ab", "abc", "abcd", std::string("\0\xff\x10", 3)}) {
    auto decoded = base64_decode(base64_encode(s));
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(*decoded, s);
  }
  EXPECT_FALSE(base64_decode("abc").ok());
}

TEST(sha256_hex, HexOfEmptyInput) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}
