// One test per schema rule of docs/build-toml.md (edition 5 unless stated otherwise).
#include <gtest/gtest.h>

#include "test_support.h"

namespace kb::config {
namespace {
namespace KB_UNITY_ID {

using namespace testing;

std::string with_general(const std::string& extra) { return general_v5 + extra + torch_section; }

TEST(SchemaGeneral, RejectsUnknownKeysWithDidYouMean) {
  ParseOutcome outcome = parse(general_v5 + "backend = [\"cuda\"]\n" + torch_section);
  ASSERT_EQ(outcome.errors.size(), 1u);
  EXPECT_EQ(outcome.errors[0].message, "unknown key `backend` in [general]");
  EXPECT_EQ(outcome.errors[0].hints, std::vector<std::string>{"did you mean `backends`?"});
  EXPECT_EQ(outcome.errors[0].line, 7);
  EXPECT_EQ(outcome.errors[0].column, 1);
}

TEST(SchemaGeneral, OnlyKnownSubTablesExist) {
  EXPECT_EQ(only_error(general_v5 + "\n[general.rocm]\n" + torch_section), "unknown key `rocm` in [general]");
  EXPECT_EQ(only_error(general_v5 + "\n[general.hub]\nrepo = \"a/b\"\n" + torch_section),
            "unknown key `repo` in [general.hub]");
  EXPECT_EQ(only_error(general_v5 + "\n[general.tpu]\nkernel-depends = []\n" + torch_section),
            "unknown key `kernel-depends` in [general.tpu]");
  EXPECT_EQ(only_error(general_v5 + "\n[general.xpu]\nminver = \"1\"\n" + torch_section),
            "unknown key `minver` in [general.xpu]");
}

TEST(SchemaGeneral, RequiredKeysAndTypes) {
  EXPECT_EQ(only_error("[general]\nedition = 5\nname = \"relu\"\nversion = 1\nbackends = []\n" + torch_section),
            "missing required key `license` in [general]");
  EXPECT_EQ(only_error(with_general("").replace(general_v5.find("version = 1"), 11, "version = \"1\"")),
            "invalid type for `general.version`: expected integer, found string");
  EXPECT_EQ(only_error(with_general("").replace(general_v5.find("version = 1"), 11, "version = -2")),
            "invalid value for `general.version`: expected a non-negative integer, found -2");
}

TEST(SchemaGeneral, BackendsMustBeKnownLowerCaseNames) {
  std::string text = with_general("").replace(general_v5.find("[\"cuda\"]"), 8, "[\"Cuda\"]");
  ParseOutcome outcome = parse(text);
  ASSERT_EQ(outcome.errors.size(), 1u);
  EXPECT_EQ(outcome.errors[0].message,
            "unknown backend `Cuda` in `general.backends`, expected one of: cann, cpu, cuda, metal, neuron, rocm, "
            "tpu, xpu");
  EXPECT_EQ(outcome.errors[0].hints, std::vector<std::string>{"did you mean `cuda`?"});
}

TEST(SchemaGeneral, EmptyAndDuplicateBackendsWarn) {
  std::string empty = with_general("").replace(general_v5.find("[\"cuda\"]"), 8, "[]");
  EXPECT_TRUE(has_warning(parse(empty), "`general.backends` is empty; nothing will be built"));
  std::string twice = with_general("").replace(general_v5.find("[\"cuda\"]"), 8, "[\"cuda\", \"cuda\"]");
  ParseOutcome outcome = parse(twice);
  ASSERT_TRUE(outcome.parsed);
  EXPECT_EQ(outcome.parsed->config.general.backends.size(), 1u);
  EXPECT_TRUE(has_warning(outcome, "backend `cuda` is listed more than once in `general.backends`"));
}

TEST(SchemaGeneral, GitUrlsAreCheckedAndKeptVerbatim) {
  ParseOutcome outcome = parse(with_general("upstream = \"git@github.com:org/relu.git\"\n"));
  ASSERT_TRUE(outcome.parsed);
  EXPECT_EQ(outcome.parsed->config.general.upstream->original, "git@github.com:org/relu.git");
  EXPECT_EQ(outcome.parsed->config.general.upstream->normalized, "ssh://git@github.com/org/relu.git");
  EXPECT_EQ(only_error(with_general("source = \"relu\"\n")), "`general.source`: invalid git URL `relu`");
}

TEST(SchemaKernelDependency, VersionXorRevision) {
  EXPECT_EQ(only_error(with_general("kernel-depends = [{ repo-id = \"o/k\", version = 1, revision = \"x\" }]\n")),
            "`version` and `revision` are mutually exclusive");
  EXPECT_EQ(only_error(with_general("kernel-depends = [{ repo-id = \"o/k\" }]\n")),
            "either `version` or `revision` must be specified");
  EXPECT_EQ(only_error(with_general("kernel-depends = [{ repo-id = \"o/k\", version = \"1\" }]\n")),
            "invalid type for `general.kernel-depends[0].version`: expected integer, found string");
  EXPECT_EQ(only_error(with_general("kernel-depends = [{ repo-id = \"o/k\", version = 1, tag = \"x\" }]\n")),
            "unknown key `tag` in [general.kernel-depends[0]]");
}

TEST(SchemaRegistry, PythonDependsNamesComeFromTheRegistry) {
  EXPECT_EQ(only_error(with_general("python-depends = [\"numpy\"]\n")), "Unknown dependency: `numpy`");
  EXPECT_EQ(only_error(general_v5 + "\n[general.cuda]\npython-depends = [\"nki\"]\n" + torch_section),
            "Unknown dependency `nki` for backend `cuda`");
  std::string tpu = with_general("").replace(general_v5.find("[\"cuda\"]"), 8, "[\"tpu\"]");
  EXPECT_EQ(only_error(tpu + "\n[general.tpu]\npython-depends = [\"jax\"]\n"),
            "No dependencies are defined for backend: tpu");
  // A section for an unlisted backend is never resolved: warning only.
  ParseOutcome outcome = parse(general_v5 + "\n[general.xpu]\npython-depends = [\"nope\"]\n" + torch_section);
  ASSERT_TRUE(outcome.parsed);
  EXPECT_TRUE(has_warning(outcome, "[general.xpu] is ignored: `xpu` is not in `general.backends`"));
}

TEST(SchemaFramework, ExactlyOneSection) {
  EXPECT_EQ(only_error(general_v5), "exactly one of [torch], [torch-noarch] or [tvm-ffi] must be present");
  EXPECT_EQ(only_error(general_v5 + torch_section + "\n[torch-noarch]\n"),
            "exactly one of [torch], [torch-noarch] or [tvm-ffi] must be present");
}

TEST(SchemaFramework, TorchNoarchAcceptsBothSpellingsButNotTogether) {
  ParseOutcome dash = parse(general_v5 + "\n[torch-noarch]\ncuda-capabilities = [\"8.0\"]\nrocm-archs = [\"gfx942\"]\n");
  ASSERT_TRUE(dash.parsed);
  const auto& noarch = std::get<TorchNoarchConfig>(dash.parsed->config.framework);
  EXPECT_EQ(noarch.cuda_capabilities, std::vector<std::string>{"8.0"});
  EXPECT_EQ(noarch.rocm_archs, std::vector<std::string>{"gfx942"});
  ASSERT_TRUE(parse(general_v5 + "\n[torch-noarch]\ncuda_capabilities = [\"8.0\"]\n").parsed);
  EXPECT_EQ(only_error(general_v5 + "\n[torch-noarch]\nrocm_archs = []\nrocm-archs = []\n"),
            "`rocm-archs` and `rocm_archs` are the same key in [torch-noarch]; set only one");
}

TEST(SchemaFramework, StableAbiForms) {
  ParseOutcome form1 = parse(general_v5 + torch_section + "stable-abi = \"2.11\"\n");
  ASSERT_TRUE(form1.parsed);
  const auto& torch = std::get<TorchConfig>(form1.parsed->config.framework);
  EXPECT_EQ(torch.stable_abi_for(Backend::cuda)->to_string(), "2.11");
  ParseOutcome form2 = parse(general_v5 + torch_section + "\n[torch.stable-abi]\ncuda = \"2.10\"\n");
  ASSERT_TRUE(form2.parsed);
  const auto& torch2 = std::get<TorchConfig>(form2.parsed->config.framework);
  EXPECT_EQ(torch2.stable_abi_for(Backend::cuda)->to_string(), "2.10");
  EXPECT_FALSE(torch2.stable_abi_for(Backend::cpu).has_value());
  EXPECT_EQ(only_error(general_v5 + torch_section + "\n[torch.stable-abi]\ncuda2 = \"2.10\"\n"),
            "unknown backend `cuda2` in [torch.stable-abi], expected one of: cann, cpu, cuda, metal, neuron, rocm, "
            "tpu, xpu");
  // Edition 4 (no edition key): Form 1 only.
  std::string v4 = "[general]\nname = \"relu\"\nversion = 1\nlicense = \"MIT\"\nbackends = [\"cuda\"]\n" + torch_section;
  EXPECT_TRUE(parse(v4 + "stable-abi = \"2.11\"\n").parsed);
  EXPECT_FALSE(parse(v4 + "\n[torch.stable-abi]\ncuda = \"2.11\"\n").parsed);
}

TEST(SchemaFramework, TvmFfiRequiresSrc) {
  EXPECT_EQ(only_error(general_v5 + "\n[tvm-ffi]\n"), "missing required key `src` in [tvm-ffi]");
}

TEST(SchemaKernel, BackendSpecificKeysOnlyOnTheirBackend) {
  ParseOutcome outcome = parse(general_v5 + torch_section +
                               "\n[kernel.relu]\nbackend = \"cpu\"\ndepends = []\nsrc = []\ncuda-flags = []\n");
  ASSERT_EQ(outcome.errors.size(), 1u);
  EXPECT_EQ(outcome.errors[0].message, "unknown key `cuda-flags` in [kernel.relu]");
  EXPECT_EQ(outcome.errors[0].hints,
            std::vector<std::string>{"`cuda-flags` is only valid in kernels with `backend = \"cuda\"`"});
}

TEST(SchemaKernel, BackendDependsAndSrcRules) {
  EXPECT_EQ(only_error(general_v5 + torch_section + "\n[kernel.k]\nbackend = \"tpu\"\ndepends = []\nsrc = []\n"),
            "invalid backend `tpu` for `kernel.k.backend`, expected one of: cpu, cuda, metal, rocm, xpu");
  EXPECT_EQ(only_error(general_v5 + torch_section + "\n[kernel.k]\nbackend = \"cuda\"\nsrc = []\n"),
            "missing required key `depends` in [kernel.k]");
  EXPECT_EQ(
      only_error(general_v5 + torch_section + "\n[kernel.k]\nbackend = \"cuda\"\ndepends = [\"cutlass\"]\nsrc = []\n"),
      "unknown build dependency `cutlass` in `kernel.k.depends`, expected one of: torch, cutlass_2_10, cutlass_3_5, "
      "cutlass_3_6, cutlass_3_8, cutlass_3_9, cutlass_4_0, cutlass_4_4, cutlass_4_5, sycl_tla, metal-cpp");
}

TEST(SchemaKernel, KeepsFileOrderNotKeyOrder) {
  std::string text = general_v5 + torch_section +
                     "\n[kernel.b]\nbackend = \"cuda\"\ndepends = []\nsrc = []\n"
                     "\n[kernel.a]\nbackend = \"cuda\"\ndepends = []\nsrc = []\n";
  ParseOutcome outcome = parse(text);
  ASSERT_TRUE(outcome.parsed);
  EXPECT_EQ(outcome.parsed->config.kernels[0].name, "b");
  EXPECT_EQ(outcome.parsed->config.kernels[1].name, "a");
}

TEST(SchemaSemantics, IgnoredUnitsAndTvmFfiBackendsWarn) {
  std::string rocm_unit = "\n[kernel.r]\nbackend = \"rocm\"\ndepends = []\nsrc = []\n";
  EXPECT_TRUE(has_warning(parse(general_v5 + torch_section + rocm_unit),
                          "[kernel.r] is ignored: backend `rocm` is not in `general.backends`"));
  EXPECT_TRUE(has_warning(parse(general_v5 + "\n[torch-noarch]\n" + cuda_kernel),
                          "[kernel.relu] is ignored: [torch-noarch] projects have no compiled kernel units"));
  std::string two = general_v5;
  two.replace(two.find("[\"cuda\"]"), 8, "[\"cuda\", \"cpu\"]");
  EXPECT_TRUE(has_warning(parse(two + "\n[tvm-ffi]\nsrc = []\n" + cuda_kernel),
                          "backend `cpu` has no [kernel.*] unit; skipped (tvm-ffi kernels cannot be noarch)"));
}

TEST(SchemaSemantics, OddCapabilitiesArchsAndRangesWarn) {
  ParseOutcome noarch = parse(general_v5 + "\n[torch-noarch]\ncuda-capabilities = [\"sm_80\"]\n");
  ASSERT_TRUE(noarch.parsed);
  ASSERT_EQ(noarch.warnings.size(), 1u);
  EXPECT_EQ(noarch.warnings[0].message, "`sm_80` in [torch-noarch] is not a CUDA capability like `8.0`");
  EXPECT_EQ(noarch.warnings[0].line, 9);
  ParseOutcome unit = parse(general_v5 + torch_section + cuda_kernel + "cuda-capabilities = [\"9.0a\", \"90\"]\n");
  EXPECT_TRUE(has_warning(unit, "`90` is not a CUDA capability like `8.0`, `9.0a`, `10.0f` or `8.0+PTX`"));
  ParseOutcome range = parse(general_v5 + "\n[torch]\nminver = \"2.10\"\nmaxver = \"2.9\"\n");
  EXPECT_TRUE(has_warning(range, "`torch.minver` (2.10) is greater than `torch.maxver` (2.9); no version satisfies both"));
}

TEST(SchemaLegacy, V3DiffersFromV4) {
  // v3: no `source`, no [torch-noarch], no cxx-flags in [torch].
  std::string v3 = "[general]\nname = \"relu\"\nbackends = [\"cuda\"]\n";
  EXPECT_FALSE(parse(v3 + "source = \"https://x.org/r\"\n").parsed);
  EXPECT_FALSE(parse(v3 + "\n[torch-noarch]\n").parsed);
  EXPECT_FALSE(parse(v3 + "\n[torch]\ncxx-flags = []\n").parsed);
  EXPECT_TRUE(parse(v3 + "\n[torch]\nsrc = []\ninclude = []\npyext = [\"py\"]\n").parsed);
  // v4: no kernel-depends, no [general.tpu].
  std::string v4 = "[general]\nname = \"relu\"\nversion = 1\nlicense = \"MIT\"\nbackends = [\"cuda\"]\n";
  EXPECT_FALSE(parse(v4 + "\n[general.tpu]\n" + torch_section).parsed);
  EXPECT_EQ(parse(v4 + torch_section).parsed->edition, Edition::v4);
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::config
