// Tests of metadata.json reading and canonical writing.
#include <gtest/gtest.h>

#include "metadata/metadata.h"

using namespace kb::metadata;

namespace {

const char* canonical_full =
    R"({
  "name": "relu",
  "id": "_relu_cuda_3f9a1c2",
  "version": 1,
  "kernels-minver": "0.18.2",
  "license": "Apache-2.0",
  "upstream": "git@github.com:org/relu.git",
  "python-depends": [
    "einops"
  ],
  "kernel-depends": [
    {
      "repo-id": "org/k",
      "version": 1
    },
    {
      "repo-id": "org/j",
      "revision": "34fa"
    }
  ],
  "backend": {
    "type": "cuda",
    "archs": [
      "7.5",
      "9.0+PTX"
    ]
  },
  "digest": {
    "algorithm": "sha256",
    "files": {
      "__init__.py": "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek=",
      "_ops.py": "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek="
    }
  },
  "provenance": {
    "kernel-builder": {
      "version": "0.1.0",
      "commit": "0123456789abcdef0123456789abcdef01234567",
      "dirty": false
    },
    "kernel": {
      "commit": "89abcdef0123456789abcdef0123456789abcdef",
      "dirty": true
    }
  }
})";

const char* minimal = R"({"name": "relu", "id": "_relu_cpu_x", "version": 2, "license": "MIT",
  "python-depends": [], "backend": {"type": "cpu"}})";

}  // namespace

TEST(render_metadata, RoundTripsCanonicalText) {
  auto parsed = parse_metadata(canonical_full);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(render_metadata(*parsed), canonical_full);
}

TEST(render_metadata, MinimalHasEmptyListsAndNoArchs) {
  auto parsed = parse_metadata(minimal);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(render_metadata(*parsed), R"({
  "name": "relu",
  "id": "_relu_cpu_x",
  "version": 2,
  "license": "MIT",
  "python-depends": [],
  "kernel-depends": [],
  "backend": {
    "type": "cpu"
  }
})");
}

TEST(parse_metadata, AcceptsShaAliasAndLowercasesOid) {
  auto parsed = parse_metadata(R"({"name": "relu", "id": "x", "version": 1, "license": "MIT",
    "python-depends": [], "backend": {"type": "cpu"}, "unknown": 1,
    "provenance": {"kernel": {"sha": "89ABCDEF0123456789abcdef0123456789abcdef", "dirty": false}}})");
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_TRUE(parsed->provenance && parsed->provenance->kernel);
  EXPECT_EQ(parsed->provenance->kernel->commit, "89abcdef0123456789abcdef0123456789abcdef");
  EXPECT_FALSE(parsed->provenance->dirty());
}

TEST(parse_metadata, RejectsInvalidContent) {
  auto base = [](const std::string& extra) {
    return R"({"name": "relu", "id": "x", "version": 1, "license": "MIT", "python-depends": [],
      "backend": {"type": "cpu"})" + extra + "}";
  };
  EXPECT_FALSE(parse_metadata(base(R"(, "digest": {"algorithm": "md5", "files": {}})")));
  EXPECT_FALSE(parse_metadata(base(R"(, "provenance": {"kernel": {"commit": "abc", "dirty": false}})")));
  EXPECT_FALSE(parse_metadata(base(R"(, "provenance": {"kernel": {"commit": "0123456789abcdef0123456789abcdef01234567"}})")));
  EXPECT_FALSE(parse_metadata(base(R"(, "provenance": {"kernel-builder": {"version": "1", "dirty": true}})")));
  EXPECT_FALSE(parse_metadata(R"({"name": "relu", "id": "x", "version": 1, "license": "MIT", "backend": {"type": "cpu"}})"));
  EXPECT_FALSE(parse_metadata(R"({"name": "Relu", "id": "x", "version": 1, "license": "MIT", "python-depends": [], "backend": {"type": "cpu"}})"));
  EXPECT_FALSE(parse_metadata(R"({"name": "relu", "id": "x", "version": 1, "license": "MIT", "python-depends": [], "backend": {"type": "gpu"}})"));
  EXPECT_FALSE(parse_metadata("{"));
}

TEST(parse_metadata, KernelsMinver) {
  auto with = [](const std::string& value) {
    return R"({"name": "relu", "id": "x", "version": 1, "license": "MIT", "python-depends": [],
      "backend": {"type": "cpu"}, "kernels-minver": )" + value + "}";
  };
  auto parsed = parse_metadata(with(R"("0.18.0")"));
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->kernels_minver, "0.18.0");
  EXPECT_EQ(parse_metadata(minimal)->kernels_minver, std::nullopt);
  auto bad = parse_metadata(with(R"("0.18.0rc1")"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "field `kernels-minver` must be a dotted version such as `0.18.0`, not `0.18.0rc1`");
  EXPECT_FALSE(parse_metadata(with("18")));
}
