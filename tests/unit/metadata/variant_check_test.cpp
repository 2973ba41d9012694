// metadata::check_variant: the check-builds rules that `check-builds` and `upload` share.
#include <gtest/gtest.h>

#include "metadata/digest.h"
#include "metadata/variant_check.h"
#include "util/fs.h"

using namespace kb::metadata;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& path, const std::string& content) {
  ASSERT_TRUE(kb::util::write_file_atomic(path, content));
}

Metadata sample() {
  Metadata m;
  m.name = "relu";
  m.id = "_relu_cpu_abc1234";
  m.license = "Apache-2.0";
  return m;
}

// A variant `torch-cpu` holding a.txt, with metadata.json recording its digest (or none).
VariantDir make_variant(const fs::path& root, bool with_digest) {
  fs::path dir = root / "torch-cpu";
  write(dir / "a.txt", "hello world");
  Metadata m = sample();
  if (with_digest) m.digest = *compute_digest(dir);
  write(dir / "metadata.json", render_metadata(m));
  return {"torch-cpu", dir};
}

}  // namespace

TEST(check_variant, PassesAMatchingDigestAndReturnsTheMetadata) {
  kb::util::TempDir dir;
  auto variant = make_variant(dir.path(), true);
  auto checked = check_variant(variant, {.require_digest = true});
  ASSERT_TRUE(checked) << checked.error().message;
  EXPECT_EQ(checked->id, "_relu_cpu_abc1234");
  ASSERT_TRUE(checked->digest);
  EXPECT_EQ(checked->digest->files.size(), 1u);
}

TEST(check_variant, AddedChangedAndMissingFilesAreViolations) {
  kb::util::TempDir dir;
  auto variant = make_variant(dir.path(), true);
  write(variant.path / "added.txt", "x");
  auto added = check_variant(variant);
  ASSERT_FALSE(added);
  EXPECT_EQ(added.error().kind, kb::util::ErrorKind::integrity);
  EXPECT_EQ(added.error().message, "Variant `torch-cpu` failed the digest check");
  EXPECT_EQ(added.error().causes,
            (std::vector<std::string>{"kernel does not match the expected digest:\nUnknown file: added.txt"}));
  fs::remove(variant.path / "added.txt");
  ASSERT_TRUE(check_variant(variant));

  write(variant.path / "a.txt", "hello world!");
  auto changed = check_variant(variant);
  ASSERT_FALSE(changed);
  EXPECT_EQ(changed.error().causes.at(0),
            "kernel does not match the expected digest:\nFile hash mismatch for a.txt: expected: "
            "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek=, got: dQnlvaDHYtK6x/kNdYtbImP6Acy8VCq1498WO+CObKk=");

  fs::remove(variant.path / "a.txt");
  auto missing = check_variant(variant);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().causes.at(0), "kernel does not match the expected digest:\nMissing file: a.txt");
}

TEST(check_variant, ALinkToAFileCountsAsThatFile) {
  kb::util::TempDir dir;
  write(dir.path() / "shared.txt", "hello world");
  fs::path variant = dir.path() / "torch-cpu";
  fs::create_directories(variant);
  fs::create_symlink(dir.path() / "shared.txt", variant / "a.txt");
  Metadata m = sample();
  m.digest = Digest{DigestAlgorithm::sha256, {{"a.txt", "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek="}}};
  write(variant / "metadata.json", render_metadata(m));
  EXPECT_TRUE(check_variant({"torch-cpu", variant}, {.require_digest = true}));
}

TEST(check_variant, NoDigestPassesCheckBuildsButNotWhenRequired) {
  kb::util::TempDir dir;
  auto variant = make_variant(dir.path(), false);
  write(variant.path / "anything.txt", "x");
  EXPECT_TRUE(check_variant(variant));
  auto required = check_variant(variant, {.require_digest = true});
  ASSERT_FALSE(required);
  EXPECT_EQ(required.error().kind, kb::util::ErrorKind::integrity);
  EXPECT_EQ(required.error().message, "Variant `torch-cpu` records no digest");
  EXPECT_EQ(required.error().hints.size(), 1u);
}

TEST(check_variant, MissingOrBrokenMetadata) {
  kb::util::TempDir dir;
  fs::create_directories(dir.path() / "v");
  auto missing = check_variant({"v", dir.path() / "v"});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "Metadata file not found for variant at " + (dir.path() / "v").string());
  write(dir.path() / "v" / "metadata.json", "{not json");
  auto broken = check_variant({"v", dir.path() / "v"});
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().message, "Failed to parse metadata: " + (dir.path() / "v" / "metadata.json").string());
}
