// Lock hashes and kernels.lock (de)serialisation (docs/loader.md).
#include "loader/lockfile.h"

#include <gtest/gtest.h>

#include "util/hash.h"

namespace kb::loader {
namespace {
namespace KB_UNITY_ID {

std::string unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

TEST(ComputeVariantLocks, HashesSortedNameAndRawHashPairs) {
  const std::string a = std::string(40, 'a');
  const std::string b = std::string(64, 'b');
  std::vector<TreeFile> files = {
      {"build/torch-cpu/z.py", a},
      {"build/torch-cpu/__init__.py", b},
      {"build/torch-cpu/__pycache__/x.cpython-311.pyc", a},
      {"build/torch-cpu/sub/y.pyc", a},
      {"README.md", a},
      {"benchmarks/benchmark.py", a},
      {"build/tvm-ffi01-cpu-x86_64-linux/lib.so", b},
  };
  auto locks = compute_variant_locks(files);
  ASSERT_EQ(locks.size(), 2u);
  util::Hasher hasher(util::HashAlgorithm::sha256);
  hasher.update("__init__.py");
  hasher.update(unhex(b));
  hasher.update("z.py");
  hasher.update(unhex(a));
  EXPECT_EQ(locks["torch-cpu"].hash, "sha256-" + util::to_hex(hasher.finish()));
  EXPECT_EQ(locks["torch-cpu"].hash_type, "git_lfs_concat");
  EXPECT_TRUE(locks.count("tvm-ffi01-cpu-x86_64-linux"));
}

TEST(RenderLockfile, RoundTripsAndMatchesUpstreamShape) {
  KernelLock lock{"org/k", std::string(40, 'c'), {{"torch-cpu", {"sha256-" + std::string(64, 'd'), "git_lfs_concat"}}},
                  std::nullopt, std::nullopt};
  auto text = render_lockfile({lock});
  EXPECT_EQ(text.substr(0, 21), "[\n  {\n    \"repo_id\": ");
  auto parsed = parse_lockfile(text);
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->size(), 1u);
  EXPECT_EQ(parsed->at(0).repo_id, "org/k");
  EXPECT_EQ(parsed->at(0).sha, lock.sha);
}

TEST(RenderLockfile, StructuredEntriesAreKeyedByWhatWasRequired) {
  KernelLock by_version{"org/a", std::string(40, 'a'), {}, 2, std::nullopt};
  KernelLock by_revision{"org/b", std::string(40, 'b'), {}, std::nullopt, std::string(40, 'e')};
  auto text = render_lockfile({by_version, by_revision});
  EXPECT_EQ(text,
            "[\n  {\n    \"dependency\": {\n      \"repo-id\": \"org/a\",\n      \"version\": 2\n    },\n"
            "    \"lock\": {\n      \"commit\": \"" + std::string(40, 'a') + "\"\n    }\n  },\n"
            "  {\n    \"dependency\": {\n      \"repo-id\": \"org/b\",\n      \"revision\": \"" +
                std::string(40, 'e') + "\"\n    },\n    \"lock\": {\n      \"commit\": \"" + std::string(40, 'b') +
                "\"\n    }\n  }\n]");
  auto parsed = parse_lockfile(text);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->at(0).version, 2);
  EXPECT_FALSE(parsed->at(0).revision);
  EXPECT_EQ(parsed->at(1).revision, std::string(40, 'e'));
  EXPECT_FALSE(parsed->at(1).version);
}

TEST(ParseLockfile, StructuredEntriesNeedOneRequirementAndNoDuplicate) {
  const std::string commit = std::string(40, 'c');
  auto entry = [&](const std::string& requirement) {
    return R"({"dependency": {"repo-id": "org/a")" + requirement + R"(}, "lock": {"commit": ")" + commit + R"("}})";
  };
  EXPECT_FALSE(parse_lockfile("[" + entry("") + "]").ok());
  EXPECT_FALSE(parse_lockfile("[" + entry(R"(, "version": 1, "revision": "main")") + "]").ok());
  EXPECT_FALSE(parse_lockfile("[" + entry(R"(, "version": "1")") + "]").ok());
  EXPECT_FALSE(parse_lockfile("[" + entry(R"(, "version": 1)") + "," + entry(R"(, "version": 1)") + "]").ok());
  auto two = parse_lockfile("[" + entry(R"(, "version": 1)") + "," + entry(R"(, "version": 2)") + "]");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->size(), 2u);
}

TEST(ParseLockfile, AcceptsStructuredFormatAndUnknownKeys) {
  auto parsed = parse_lockfile(
      R"([{"dependency": {"repo-id": "org/a", "version": 1}, "lock": {"commit": "abc"}},
          {"repo_id": "org/b", "sha": "def", "extra": 1}])");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_EQ(parsed->at(0).repo_id, "org/a");
  EXPECT_EQ(parsed->at(0).sha, "abc");
  EXPECT_EQ(parsed->at(1).repo_id, "org/b");
  EXPECT_EQ(parsed->at(1).sha, "def");
  EXPECT_FALSE(parse_lockfile("{}").ok());
}

TEST(ParseLockfile, RefusesNamesThatCouldReachOutsideTheCache) {
  for (const char* entry : {R"({"repo_id": "org/a", "sha": "../../../pwned"})",
                            R"({"repo_id": "org/a/../../pwned", "sha": "main"})",
                            R"({"repo_id": "/etc", "sha": "main"})",
                            R"({"dependency": {"repo-id": "org/a"}, "lock": {"commit": "../x"}})",
                            R"({"dependency": {"repo-id": 3}, "lock": {"commit": "main"}})"}) {
    auto parsed = parse_lockfile(std::string("[") + entry + "]");
    ASSERT_FALSE(parsed.ok()) << entry;
  }
  auto parsed = parse_lockfile(R"([{"repo_id": "org/a", "sha": "../../../pwned"}])");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().kind, util::ErrorKind::invalid);
  std::string text = parsed.error().message;
  for (const auto& cause : parsed.error().causes) text += "\n" + cause;
  EXPECT_NE(text.find("org/a"), std::string::npos) << text;
  EXPECT_NE(text.find("../../../pwned"), std::string::npos) << text;
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::loader
