// The variant table of repository pages (hub/web/variant_table.h): names through src/variant,
// metadata.json through src/metadata, digest status against the stored files.
#include "hub/web/variant_table.h"

#include <gtest/gtest.h>

#include <map>

#include "util/hash.h"

namespace kb::hub::web {
namespace {
namespace KB_UNITY_ID {

// An in-memory repository revision: path -> content.
struct FakeRevision {
  std::map<std::string, std::string> contents;

  std::vector<RepoFile> files() const {
    std::vector<RepoFile> out;
    for (const auto& [path, data] : contents) out.push_back({path, data.size(), util::sha256_hex(data)});
    return out;
  }
  VariantSources sources() const {
    return {[this](const RepoFile& file) -> util::Result<std::string> { return contents.at(file.path); },
            [this](const RepoFile& file, metadata::DigestAlgorithm algorithm) -> util::Result<std::string> {
              return util::hash_bytes(algorithm == metadata::DigestAlgorithm::sha512 ? util::HashAlgorithm::sha512
                                                                                     : util::HashAlgorithm::sha256,
                                      contents.at(file.path));
            }};
  }

  // A variant directory with two files and a metadata.json recording their digest.
  void add_variant(const std::string& name, config::Backend backend, std::vector<std::string> archs = {},
                   std::optional<metadata::DigestAlgorithm> algorithm = metadata::DigestAlgorithm::sha256) {
    std::map<std::string, std::string> files = {{"__init__.py", "from ._ops import ops\n"},
                                                {"_ops.py", "ops = '" + name + "'\n"}};
    metadata::Metadata meta;
    meta.name = "relu";
    meta.id = "_relu_abc";
    meta.license = "MIT";
    meta.backend = backend;
    meta.archs = std::move(archs);
    if (algorithm) {
      metadata::Digest digest{*algorithm, {}};
      for (const auto& [path, data] : files) {
        digest.files[path] = util::base64_encode(util::hash_bytes(
            *algorithm == metadata::DigestAlgorithm::sha512 ? util::HashAlgorithm::sha512 : util::HashAlgorithm::sha256,
            data));
      }
      meta.digest = digest;
    }
    files["metadata.json"] = metadata::render_metadata(meta);
    // Excluded from the digest, as check-builds excludes them.
    files["__pycache__/_ops.cpython-312.pyc"] = "bytecode";
    for (const auto& [path, data] : files) contents["build/" + name + "/" + path] = data;
  }
};

TEST(VariantNames, TheDirectoriesUnderBuildOnceEachSorted) {
  EXPECT_EQ(variant_names({"README.md", "build/torch-cuda/_ops.py", "build/torch-cpu/a/b.py", "build/torch-cpu/x.py",
                           "build/CARD.md", "src/build/y/z"}),
            (std::vector<std::string>{"torch-cpu", "torch-cuda"}));
}

TEST(VariantRows, DescribeNameAndMetadataAndVerifyTheDigest) {
  FakeRevision revision;
  revision.add_variant("torch211-cxx11-cu126-x86_64-linux", config::Backend::cuda, {"8.0", "9.0a"});
  revision.add_variant("torch-stable-abi211-rocm71-x86_64-linux", config::Backend::rocm, {"gfx942"},
                       metadata::DigestAlgorithm::sha512);
  revision.add_variant("torch-cpu", config::Backend::cpu);
  revision.contents["README.md"] = "# card";
  revision.contents["build/stray.txt"] = "not a variant";
  auto rows = variant_rows(revision.files(), revision.sources());
  ASSERT_EQ(rows.size(), 3u);

  EXPECT_EQ(rows[0].name, "torch-cpu");
  EXPECT_EQ(rows[0].kind, "noarch");
  EXPECT_EQ(rows[0].framework, "any");
  EXPECT_EQ(rows[0].backend, "cpu");
  EXPECT_EQ(rows[0].digest, DigestStatus::verified);

  EXPECT_EQ(rows[1].name, "torch-stable-abi211-rocm71-x86_64-linux");
  EXPECT_EQ(rows[1].framework, "Torch stable ABI 2.11");
  EXPECT_EQ(rows[1].compute, "ROCm 7.1");
  EXPECT_EQ(rows[1].archs, std::vector<std::string>{"gfx942"});
  EXPECT_EQ(rows[1].digest, DigestStatus::verified) << rows[1].detail;

  const VariantRow& cuda = rows[2];
  EXPECT_EQ(cuda.kind, "torch");
  EXPECT_EQ(cuda.backend, "cuda");
  EXPECT_EQ(cuda.framework, "Torch 2.11");
  EXPECT_EQ(cuda.compute, "CUDA 12.6");
  EXPECT_EQ(cuda.platform, "x86_64-linux");
  EXPECT_EQ(cuda.archs, (std::vector<std::string>{"8.0", "9.0a"}));
  EXPECT_EQ(cuda.files, 4u);
  uint64_t size = 0;
  for (const auto& [path, data] : revision.contents) {
    if (path.rfind("build/torch211-cxx11-cu126-x86_64-linux/", 0) == 0) size += data.size();
  }
  EXPECT_EQ(cuda.size, size);
  EXPECT_EQ(cuda.digest, DigestStatus::verified);
}

TEST(VariantRows, ChangedMissingAndExtraFilesAreMismatches) {
  FakeRevision changed, missing, extra;
  for (FakeRevision* revision : {&changed, &missing, &extra}) revision->add_variant("torch-cpu", config::Backend::cpu);
  changed.contents["build/torch-cpu/_ops.py"] = "ops = 'changed'\n";
  missing.contents.erase("build/torch-cpu/__init__.py");
  extra.contents["build/torch-cpu/added.py"] = "x";
  for (auto [revision, detail] : {std::pair{&changed, "File hash mismatch for _ops.py"},
                                  {&missing, "Missing file: __init__.py"},
                                  {&extra, "Unknown file: added.py"}}) {
    auto rows = variant_rows(revision->files(), revision->sources());
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].digest, DigestStatus::mismatch);
    EXPECT_EQ(rows[0].detail.rfind(detail, 0), 0u) << rows[0].detail;
  }
}

TEST(VariantRows, MetadataProblems) {
  FakeRevision revision;
  revision.add_variant("torch-cpu", config::Backend::cpu, {}, std::nullopt);
  revision.contents["build/torch-cuda/__init__.py"] = "";
  revision.contents["build/torch-xpu/metadata.json"] = "{not json";
  revision.contents["build/<odd name>/metadata.json"] = "{}";
  auto rows = variant_rows(revision.files(), revision.sources());
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].name, "<odd name>");
  EXPECT_EQ(rows[0].kind, "unknown");
  EXPECT_EQ(rows[0].digest, DigestStatus::invalid);
  EXPECT_EQ(rows[1].digest, DigestStatus::no_digest);
  EXPECT_EQ(rows[2].name, "torch-cuda");
  EXPECT_EQ(rows[2].backend, "cuda");  // from the name: there is no metadata.json
  EXPECT_EQ(rows[2].digest, DigestStatus::no_metadata);
  EXPECT_EQ(rows[3].digest, DigestStatus::invalid);
  EXPECT_FALSE(rows[3].detail.empty());
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::web
