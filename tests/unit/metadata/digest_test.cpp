// Tests of variant-directory digests (docs/build-output.md test vectors and violation texts).
#include <gtest/gtest.h>

#include "metadata/digest.h"
#include "util/fs.h"

using namespace kb::metadata;
namespace fs = std::filesystem;

namespace {
void write(const fs::path& path, const std::string& content) {
  ASSERT_TRUE(kb::util::write_file_atomic(path, content));
}
}  // namespace

TEST(compute_digest, MatchesTestVectorsAndExclusions) {
  kb::util::TempDir dir;
  write(dir.path() / "a.txt", "hello world");
  write(dir.path() / "metadata.json", "{}");
  write(dir.path() / "metadata.json.sigstore", "{}");
  write(dir.path() / "sub" / "metadata.json", "hello world");
  write(dir.path() / "__pycache__" / "x.py", "x");
  write(dir.path() / "y.pyc", "x");
  fs::create_symlink(dir.path() / "a.txt", dir.path() / "link.txt");
  auto digest = compute_digest(dir.path());
  ASSERT_TRUE(digest);
  std::map<std::string, std::string> expected = {
      {"a.txt", "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek="},
      {"link.txt", "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek="},
      {"sub/metadata.json", "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek="}};
  EXPECT_EQ(digest->files, expected);
  auto sha512 = compute_digest(dir.path(), DigestAlgorithm::sha512);
  ASSERT_TRUE(sha512);
  EXPECT_EQ(sha512->files["a.txt"],
            "MJ7MSJwS1utMxA9QyQLytNDtd+5RGnx6m808qG1M2G+YndNbxf9JlnDaNCVbRbDP2DDoH2Bdz33FVC6TrpzXbw==");
}

TEST(digest_violations, OrderedWithSpecTexts) {
  Digest expected{DigestAlgorithm::sha256, {{"a", "A"}, {"b", "B"}, {"c", "C"}}};
  Digest actual{DigestAlgorithm::sha512, {{"a", "A"}, {"c", "X"}, {"d", "D"}, {"0", "Z"}}};
  std::vector<std::string> want = {"Algorithm mismatch: expected: SHA256, got: SHA512", "Missing file: b",
                                   "File hash mismatch for c: expected: C, got: X", "Unknown file: 0",
                                   "Unknown file: d"};
  EXPECT_EQ(digest_violations(expected, actual), want);
  EXPECT_TRUE(digest_violations(expected, expected).empty());
}

TEST(verify_digest, ReportsMismatchAsError) {
  kb::util::TempDir dir;
  write(dir.path() / "a.txt", "hello world");
  auto digest = compute_digest(dir.path());
  ASSERT_TRUE(digest);
  EXPECT_TRUE(verify_digest(dir.path(), *digest));
  write(dir.path() / "b.txt", "x");
  auto status = verify_digest(dir.path(), *digest);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message, "kernel does not match the expected digest:\nUnknown file: b.txt");
}
