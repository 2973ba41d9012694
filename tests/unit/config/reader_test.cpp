// Edition probing, legacy fallback, diagnostics and load_build_config (docs/build-toml.md).
#include <gtest/gtest.h>

#include "config/reader.h"
#include "test_support.h"
#include "util/fs.h"

namespace kb::config {
namespace {

using namespace testing;

TEST(ParseBuildToml, AcceptsEdition5) {
  ParseOutcome outcome = parse(general_v5 + torch_section + cuda_kernel);
  ASSERT_TRUE(outcome.parsed) << render_diagnostics(outcome.errors, "", "error");
  EXPECT_EQ(outcome.parsed->edition, Edition::v5);
  const BuildConfig& config = outcome.parsed->config;
  EXPECT_EQ(config.general.name, "relu");
  EXPECT_EQ(config.general.python_name(), "relu");
  EXPECT_TRUE(config.is_torch());
  ASSERT_EQ(config.kernels.size(), 1u);
  EXPECT_EQ(config.kernels[0].backend, Backend::cuda);
  EXPECT_TRUE(outcome.warnings.empty());
}

TEST(ParseBuildToml, ProbesEditionBeforeAnythingElse) {
  EXPECT_EQ(only_error("[general]\nedition = \"5\"\nbogus = 1\n"),
            "invalid `general.edition`: expected an integer, found string");
  EXPECT_EQ(only_error("[general]\nedition = 6\nbogus = 1\n"), "unsupported build edition 6; upgrade kernel-builder");
  EXPECT_EQ(only_error("[general]\nedition = 4\n"), "unsupported build edition 4; upgrade kernel-builder");
}

TEST(ParseBuildToml, LegacyWithoutEditionTriesV4ThenV3) {
  std::string v4 = "[general]\nname = \"relu\"\nversion = 1\nlicense = \"MIT\"\nbackends = [\"cuda\"]\n" + torch_section;
  ASSERT_TRUE(parse(v4).parsed);
  EXPECT_EQ(parse(v4).parsed->edition, Edition::v4);
  std::string v3 = "[general]\nname = \"relu\"\nbackends = [\"cuda\"]\n";
  ParseOutcome outcome = parse(v3);
  ASSERT_TRUE(outcome.parsed);
  EXPECT_EQ(outcome.parsed->edition, Edition::v3);
  EXPECT_TRUE(outcome.parsed->license_missing);
  EXPECT_EQ(outcome.parsed->config.general.version, 1);
  EXPECT_TRUE(outcome.parsed->config.is_torch_noarch());
}

TEST(ParseBuildToml, LegacyFailingBothNamesBothErrors) {
  std::string text = "[general]\nname = \"relu\"\nversion = 1\nlicense = \"MIT\"\nbackend = [\"cuda\"]\n" + torch_section;
  ParseOutcome outcome = parse(text);
  ASSERT_FALSE(outcome.parsed);
  EXPECT_EQ(outcome.errors.front().message,
            "did not match v4 (missing required key `backends` in [general]) or v3 (missing required key `backends` "
            "in [general])");
}

TEST(ParseBuildToml, LegacyFileValidAsEdition5GetsAHint) {
  std::string text = "[general]\nname = \"relu\"\nversion = 1\nlicense = \"MIT\"\nbackends = [\"cuda\"]\n"
                     "kernel-depends = [{ repo-id = \"org/x\", version = 1 }]\n" + torch_section;
  ParseOutcome outcome = parse(text);
  ASSERT_FALSE(outcome.parsed);
  ASSERT_FALSE(outcome.errors.front().hints.empty());
  EXPECT_NE(outcome.errors.front().hints.back().find("add `edition = 5`"), std::string::npos);
}

TEST(ParseBuildToml, TomlSyntaxErrorIsLocated) {
  ParseOutcome outcome = parse("[general]\nname = \"relu\n");
  ASSERT_EQ(outcome.errors.size(), 1u);
  EXPECT_EQ(outcome.errors[0].line, 2);
  EXPECT_EQ(outcome.errors[0].message.rfind("Cannot parse TOML in build.toml: ", 0), 0u);
}

TEST(ParseBuildToml, AcceptsNonAsciiInStringsAndComments) {
  std::string text = "# Kernel by Zoë — ünïcode ok here\n" + general_v5 +
                     "\n[torch]\nsrc = [\"torch-ext/café.cpp\", 'щ.h', \"\"\"é\"\"\"]  # ✓\n";
  ParseOutcome outcome = parse(text);
  ASSERT_TRUE(outcome.parsed) << render_diagnostics(outcome.errors, text, "error");
  EXPECT_EQ(std::get<TorchConfig>(outcome.parsed->config.framework).src[1], "щ.h");
}

TEST(ParseBuildToml, RejectsNonAsciiWhereTomlppWouldHitUndefinedBehaviour) {
  // Found by fuzz/fuzz_build_toml: toml++ 3.3 reaches __builtin_unreachable() on these.
  for (const char* text : {"k = 1 \xc3\xa9\n", "\xd1\x89 = 1\n", "k = \"\\\xc3\xa9\"\n", "k = \"\"\"a\\\n \xc3\xa9\"\"\"\n",
                           "k =99:>:\"\"\"\xcb\xb6\"\"\"\n", "k = [1, 2\"\xc3\xa9\"]\n"}) {
    ParseOutcome outcome = parse(text);
    ASSERT_EQ(outcome.errors.size(), 1u) << text;
    EXPECT_EQ(outcome.errors[0].message.rfind("Cannot parse TOML in build.toml: ", 0), 0u) << text;
  }
}

TEST(ParseBuildToml, ReportsEveryErrorSortedByPosition) {
  std::string text = "[general]\nname = \"Relu\"\nversion = -1\nedition = 5\nlicense = 3\nbackends = [\"cuda\"]\n"
                     "\n[torch]\nsrc = [1]\n";
  ParseOutcome outcome = parse(text);
  ASSERT_EQ(outcome.errors.size(), 4u);
  EXPECT_EQ(outcome.errors[0].line, 2);
  EXPECT_EQ(outcome.errors[1].line, 3);
  EXPECT_EQ(outcome.errors[2].line, 5);
  EXPECT_EQ(outcome.errors[3].line, 9);
}

TEST(RenderDiagnostics, PrintsLocationSourceLineCaretAndHint) {
  std::string text = general_v5 + "licence = \"MIT\"\n" + torch_section;
  ParseOutcome outcome = parse(text);
  ASSERT_EQ(outcome.errors.size(), 1u);
  EXPECT_EQ(render_diagnostics(outcome.errors, text, "error"),
            "build.toml:7:1: error: unknown key `licence` in [general]\n"
            "licence = \"MIT\"\n"
            "^~~~~~~\n"
            "hint: did you mean `license`?\n");
}

TEST(RenderDiagnostics, AlignsCaretUnderNonAsciiAndTabs) {
  Diagnostic diagnostic{"f.toml", 1, 4, 1, "m", {}};
  EXPECT_EQ(render_diagnostic(diagnostic, "\té = 1\n", "error"), "f.toml:1:4: error: m\n\té = 1\n\t  ^\n");
}

TEST(LoadBuildConfig, ReturnsModelForEdition5AndErrorsForMissingFile) {
  util::TempDir dir;
  auto missing = load_build_config(dir.path());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "Cannot open " + (dir.path() / "build.toml").string() + " for reading");
  ASSERT_TRUE(util::write_file_atomic(dir.path() / "build.toml", general_v5 + torch_section).ok());
  auto config = load_build_config(dir.path());
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->general.license, "Apache-2.0");
}

TEST(LoadBuildConfig, RejectsV3WithUpdateBuildHintAndCollectsDiagnostics) {
  util::TempDir dir;
  ASSERT_TRUE(util::write_file_atomic(dir.path() / "build.toml", "[general]\nname = \"relu\"\nbackends = []\n").ok());
  auto v3 = load_build_config(dir.path());
  ASSERT_FALSE(v3.ok());
  EXPECT_EQ(v3.error().message,
            "build.toml uses an unsupported legacy format; migrate it with `kernel-builder update-build`");
  ASSERT_TRUE(util::write_file_atomic(dir.path() / "build.toml", general_v5 + "bad = 1\nworse = 2\n" + torch_section).ok());
  auto bad = load_build_config(dir.path());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "Cannot parse TOML in " + (dir.path() / "build.toml").string());
  EXPECT_EQ(bad.error().causes.size(), 2u);
}

TEST(LegacyV4Warning, IsTheExactSpecText) {
  EXPECT_EQ(legacy_v4_warning(),
            "\u26a0\ufe0f  build.toml uses the legacy v4 format; upgrading to edition 5 in memory. Run "
            "`kernel-builder update-build` to persist the upgrade.");
}

}  // namespace
}  // namespace kb::config

namespace kb::config {
namespace {

TEST(BuildConfig, DataExtensionsArePyextBeyondPythonSources) {
  auto config_with = [](const std::string& torch) {
    ParseOutcome outcome = testing::parse(testing::general_v5 + torch + testing::cuda_kernel);
    EXPECT_TRUE(outcome.parsed) << render_diagnostics(outcome.errors, "", "error");
    return outcome.parsed->config;
  };
  EXPECT_TRUE(config_with("\n[torch]\nsrc = []\n").data_extensions().empty());
  EXPECT_TRUE(config_with("\n[torch]\nsrc = []\npyext = [\"py\", \"pyi\"]\n").data_extensions().empty());
  EXPECT_EQ(config_with("\n[torch]\nsrc = []\npyext = [\"py\", \"json\", \"pyi\", \"bin\"]\n").data_extensions(),
            (std::vector<std::string>{"json", "bin"}));
}

}  // namespace
}  // namespace kb::config
