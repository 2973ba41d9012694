// The edition-5 serializer and comment carry-over (docs/build-toml.md).
#include <gtest/gtest.h>

#include "config/toml_comments.h"
#include "config/toml_text.h"
#include "config/writer.h"
#include "test_support.h"

namespace kb::config {
namespace {
namespace KB_UNITY_ID {

using namespace testing;

TEST(ToToml, WritesSchemaOrderAndOmitsAbsentKeys) {
  std::string text =
      "[torch]\npyext = [\"py\"]\nsrc = []\n\n[general.hub]\nrepo-id = \"o/r\"\n\n[general]\nbackends = [\"cuda\"]\n"
      "license = \"MIT\"\nedition = 5\nversion = 3\nname = \"relu\"\n";
  ParseOutcome outcome = parse(text);
  ASSERT_TRUE(outcome.parsed);
  EXPECT_EQ(to_toml(outcome.parsed->config),
            "[general]\nname = \"relu\"\nversion = 3\nedition = 5\nlicense = \"MIT\"\nbackends = [\"cuda\"]\n"
            "\n[general.hub]\nrepo-id = \"o/r\"\n"
            "\n[torch]\nsrc = []\npyext = [\"py\"]\n");
}

TEST(ToToml, UsesUnderscoreNoarchSpellingsAndNormalisedVersions) {
  ParseOutcome outcome =
      parse(general_v5 + "\n[general.cuda]\nminver = \"12.0\"\n\n[torch-noarch]\ncuda-capabilities = [\"8.0\"]\n");
  ASSERT_TRUE(outcome.parsed);
  std::string written = to_toml(outcome.parsed->config);
  EXPECT_NE(written.find("minver = \"12\"\n"), std::string::npos);
  EXPECT_NE(written.find("cuda_capabilities = [\"8.0\"]\n"), std::string::npos);
  EXPECT_EQ(written.find("cuda-capabilities"), std::string::npos);
}

TEST(ToToml, RoundTripsThroughTheReader) {
  std::string text = general_v5 + "kernel-depends = [{ repo-id = \"o/k\", revision = \"34fa\" }]\n" + torch_section +
                     "\n[torch.stable-abi]\ncuda = \"2.11\"\n" + cuda_kernel + "cuda-minver = \"12.8\"\n";
  ParseOutcome outcome = parse(text);
  ASSERT_TRUE(outcome.parsed);
  std::string written = to_toml(outcome.parsed->config);
  ParseOutcome again = parse(written);
  ASSERT_TRUE(again.parsed) << written;
  EXPECT_EQ(to_toml(again.parsed->config), written);
  EXPECT_NE(written.find("kernel-depends = [{ repo-id = \"o/k\", revision = \"34fa\" }]"), std::string::npos);
}

TEST(TomlString, EscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(toml_string("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  EXPECT_EQ(toml_key("relu_fwd-2"), "relu_fwd-2");
  EXPECT_EQ(toml_key("relu.fwd"), "\"relu.fwd\"");
  EXPECT_EQ(toml_key(""), "\"\"");
}

TEST(ExtractComments, AnchorsLeadingAndTrailingComments) {
  std::string text = "# top\n[general]\nname = \"x\"  # the name\n\n# kernels\n[kernel.a]\nsrc = [\n  # inside\n]\n# end\n";
  TomlComments comments = extract_comments(text);
  EXPECT_EQ(comments.leading["general"], std::vector<std::string>{"# top"});
  EXPECT_EQ(comments.trailing["general.name"], "# the name");
  EXPECT_EQ(comments.leading["kernel.a"], std::vector<std::string>{"# kernels"});
  EXPECT_EQ(comments.leading["kernel.a.src"], std::vector<std::string>{"# inside"});
  EXPECT_EQ(comments.final_lines, std::vector<std::string>{"# end"});
}

TEST(ExtractComments, IgnoresHashesInsideStrings) {
  TomlComments comments = extract_comments("[general]\nname = \"a#b\"\nlicense = 'c#d' # real\n");
  EXPECT_EQ(comments.trailing.count("general.name"), 0u);
  EXPECT_EQ(comments.trailing["general.license"], "# real");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::config
