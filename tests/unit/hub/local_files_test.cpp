// What upload sends (hub/publish/local_files.h): symlink containment and the variant checks, on
// real directory trees.
#include "hub/publish/local_files.h"

#include <gtest/gtest.h>

#include "metadata/digest.h"
#include "util/fs.h"

namespace kb::hub::publish {
namespace {
namespace KB_UNITY_ID {

namespace fs = std::filesystem;

void write(const fs::path& path, const std::string& content) {
  ASSERT_TRUE(util::write_file_atomic(path, content));
}

// <tmp>/kernel (canonical) with build/torch-cpu/{a.txt, metadata.json + digest}, and
// <tmp>/secret.txt outside it.
struct Tree {
  util::TempDir tmp;
  fs::path kernel;
  fs::path variant;
  fs::path secret;

  Tree() {
    kernel = fs::canonical(tmp.path()) / "kernel";
    variant = kernel / "build" / "torch-cpu";
    secret = fs::canonical(tmp.path()) / "secret.txt";
    write(variant / "a.txt", "hello world");
    write(secret, "secret");
    record_digest();
  }
  void record_digest() {
    metadata::Metadata m;
    m.name = "relu";
    m.id = "_relu_cpu_abc1234";
    m.license = "Apache-2.0";
    m.digest = *metadata::compute_digest(variant);
    write(variant / "metadata.json", metadata::render_metadata(m));
  }
  util::Result<LocalFiles> collect(std::vector<std::string>* warnings = nullptr) const {
    auto found = metadata::discover_variants(kernel);
    EXPECT_TRUE(found);
    return collect_local_files(kernel, *found, [warnings](const std::string& w) {
      if (warnings) warnings->push_back(w);
    });
  }
};

std::string outside_message(const Tree& t, const std::string& link, const fs::path& target) {
  return "Refusing to upload: the symlink `" + link + "` leads outside the kernel directory `" + t.kernel.string() +
         "`, to `" + target.string() + "`";
}

TEST(resolve_inside, PlainPathsAndLinksThatStayInsideResolve) {
  Tree t;
  fs::create_symlink("../../notes.txt", t.variant / "notes.txt");
  write(t.kernel / "real-notes.txt", "n");
  fs::create_symlink("real-notes.txt", t.kernel / "notes.txt");
  auto plain = resolve_inside(t.kernel, t.variant / "a.txt");
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(*plain, t.variant / "a.txt");
  auto chained = resolve_inside(t.kernel, t.variant / "notes.txt");
  ASSERT_TRUE(chained) << chained.error().message;
  EXPECT_EQ(*chained, t.kernel / "real-notes.txt");
}

TEST(resolve_inside, ALinkOutNamesTheLinkAndItsFinalTarget) {
  Tree t;
  fs::create_symlink(t.secret, t.kernel / "hop");
  fs::create_symlink("../../hop", t.variant / "leak.txt");
  auto leak = resolve_inside(t.kernel, t.variant / "leak.txt");
  ASSERT_FALSE(leak);
  EXPECT_EQ(leak.error().kind, util::ErrorKind::integrity);
  EXPECT_EQ(leak.error().message, outside_message(t, "build/torch-cpu/leak.txt", t.secret));
  EXPECT_EQ(leak.error().hints.size(), 1u);
}

TEST(resolve_inside, ADirectoryLinkOnTheWayIsCheckedToo) {
  Tree t;
  fs::path elsewhere = t.kernel.parent_path() / "elsewhere";
  write(elsewhere / "x.txt", "x");
  fs::create_directory_symlink(elsewhere, t.variant / "sub");
  auto through = resolve_inside(t.kernel, t.variant / "sub" / "x.txt");
  ASSERT_FALSE(through);
  EXPECT_EQ(through.error().message, outside_message(t, "build/torch-cpu/sub", elsewhere));
}

TEST(resolve_inside, DanglingLinksAreJudgedByWhereTheyPoint) {
  Tree t;
  fs::path nowhere = t.kernel.parent_path() / "not-yet";
  fs::create_symlink(nowhere, t.variant / "out");
  fs::create_symlink("missing-inside", t.variant / "in");
  auto out = resolve_inside(t.kernel, t.variant / "out");
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().message, outside_message(t, "build/torch-cpu/out", nowhere));
  EXPECT_TRUE(resolve_inside(t.kernel, t.variant / "in"));
  // A loop cannot be resolved: an error, never a pass.
  fs::create_symlink("loop-b", t.variant / "loop-a");
  fs::create_symlink("loop-a", t.variant / "loop-b");
  auto loop = resolve_inside(t.kernel, t.variant / "loop-a");
  ASSERT_FALSE(loop);
  EXPECT_EQ(loop.error().kind, util::ErrorKind::io);
}

TEST(resolve_inside, TheKernelDirectoryMayItselfBeALink) {
  Tree t;
  fs::path alias = t.kernel.parent_path() / "alias";
  fs::create_directory_symlink(t.kernel, alias);
  fs::create_symlink(t.kernel / "build" / "torch-cpu" / "a.txt", t.variant / "b.txt");
  auto via_alias = resolve_inside(alias, alias / "build" / "torch-cpu" / "b.txt");
  ASSERT_TRUE(via_alias) << via_alias.error().message;
  EXPECT_EQ(*via_alias, t.variant / "a.txt");
}

TEST(resolve_inside, ARelativeKernelDirectoryWorks) {
  Tree t;
  fs::create_symlink(t.secret, t.variant / "leak.txt");
  fs::path before = fs::current_path();
  fs::current_path(t.kernel);
  auto dot = resolve_inside(".", "./build/torch-cpu/a.txt");
  auto leak = resolve_inside(".", fs::path(".") / "build" / "torch-cpu" / "leak.txt");
  fs::current_path(t.kernel / "build");
  auto up = resolve_inside("..", "../build/torch-cpu/a.txt");
  fs::current_path(before);
  ASSERT_TRUE(dot) << dot.error().message;
  EXPECT_EQ(*dot, t.variant / "a.txt");
  ASSERT_FALSE(leak);
  EXPECT_EQ(leak.error().message, outside_message(t, "build/torch-cpu/leak.txt", t.secret));
  ASSERT_TRUE(up) << up.error().message;
  EXPECT_EQ(*up, t.variant / "a.txt");
}

TEST(collect_local_files, VariantFilesAreTheDigestWalkWithResolvedPaths) {
  Tree t;
  fs::create_symlink("a.txt", t.variant / "b.txt");
  write(t.variant / "__pycache__" / "x.pyc", "bytecode");
  t.record_digest();
  auto files = t.collect();
  ASSERT_TRUE(files) << files.error().message;
  std::vector<std::pair<std::string, fs::path>> got;
  for (const auto& f : files->variant_files) got.emplace_back(f.path_in_repo, f.local_path);
  std::vector<std::pair<std::string, fs::path>> expected = {
      {"build/torch-cpu/__pycache__/x.pyc", t.variant / "__pycache__" / "x.pyc"},
      {"build/torch-cpu/a.txt", t.variant / "a.txt"},
      {"build/torch-cpu/b.txt", t.variant / "a.txt"},
      {"build/torch-cpu/metadata.json", t.variant / "metadata.json"}};
  EXPECT_EQ(got, expected);
  ASSERT_EQ(files->metadata.size(), 1u);
  EXPECT_EQ(files->metadata[0].id, "_relu_cpu_abc1234");
  EXPECT_FALSE(files->card);
}

TEST(collect_local_files, ALeakListedInTheDigestIsStillRefused) {
  Tree t;
  fs::create_symlink(t.secret, t.variant / "leak.txt");
  t.record_digest();  // as `kernel-builder hash` would, with the link in place
  ASSERT_TRUE(metadata::verify_digest(t.variant, *metadata::compute_digest(t.variant)));
  auto files = t.collect();
  ASSERT_FALSE(files);
  EXPECT_EQ(files.error().message, outside_message(t, "build/torch-cpu/leak.txt", t.secret));
}

TEST(collect_local_files, CardAndBenchmarksObeyTheLinkRule) {
  Tree t;
  fs::create_symlink(t.secret, t.kernel / "build" / "CARD.md");
  auto card = t.collect();
  ASSERT_FALSE(card);
  EXPECT_EQ(card.error().message, outside_message(t, "build/CARD.md", t.secret));
  fs::remove(t.kernel / "build" / "CARD.md");
  write(t.kernel / "build" / "CARD.md", "# card");
  fs::create_directories(t.kernel / "benchmarks");
  fs::create_symlink(t.secret, t.kernel / "benchmarks" / "benchmark_x.py");
  fs::create_symlink(t.secret, t.kernel / "benchmarks" / "notes.txt");  // not sent: not checked
  auto bench = t.collect();
  ASSERT_FALSE(bench);
  EXPECT_EQ(bench.error().message, outside_message(t, "benchmarks/benchmark_x.py", t.secret));
  fs::remove(t.kernel / "benchmarks" / "benchmark_x.py");
  write(t.kernel / "benchmarks" / "benchmark_y.py", "y");
  auto ok = t.collect();
  ASSERT_TRUE(ok) << ok.error().message;
  ASSERT_TRUE(ok->card);
  EXPECT_EQ(ok->card->path_in_repo, "README.md");
  ASSERT_EQ(ok->benchmarks.size(), 1u);
  EXPECT_EQ(ok->benchmarks[0].path_in_repo, "benchmarks/benchmark_y.py");
}

TEST(collect_local_files, DigestFailuresNameTheVariantWithAHint) {
  Tree t;
  write(t.variant / "stray.txt", "x");
  auto files = t.collect();
  ASSERT_FALSE(files);
  EXPECT_EQ(files.error().kind, util::ErrorKind::integrity);
  EXPECT_EQ(files.error().message, "Refusing to upload: variant `torch-cpu` does not pass the check-builds rules");
  EXPECT_EQ(files.error().causes, (std::vector<std::string>{"Variant `torch-cpu` failed the digest check",
                                                            "kernel does not match the expected digest:\nUnknown file: stray.txt"}));
  ASSERT_EQ(files.error().hints.size(), 1u);
  EXPECT_NE(files.error().hints[0].find("kernel-builder check-builds"), std::string::npos);
}

TEST(collect_local_files, ADirectoryLinkInsideIsNotEnteredAndIsReported) {
  Tree t;
  write(t.kernel / "torch-ext" / "x.py", "x");
  fs::create_directory_symlink("../../torch-ext", t.variant / "ext");
  std::vector<std::string> warnings;
  auto files = t.collect(&warnings);
  ASSERT_TRUE(files) << files.error().message;
  for (const auto& f : files->variant_files) EXPECT_EQ(f.path_in_repo.find("ext/"), std::string::npos) << f.path_in_repo;
  EXPECT_EQ(warnings, (std::vector<std::string>{"not uploading the symlink `build/torch-cpu/ext` to a directory: a "
                                                "variant's digest covers only files and links to files"}));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::publish
