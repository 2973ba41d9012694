// validate-yaml's card metadata rules (protocol/card_metadata.h).
#include "hub/protocol/card_metadata.h"

#include <gtest/gtest.h>

namespace kb::hub::protocol {
namespace {
namespace KB_UNITY_ID {

TEST(CardMetadata, ValidMetadataHasNoErrorsOrWarnings) {
  auto report = validate_card_metadata("---\nlicense: apache-2.0\ntags:\n- kernel\n- cuda\nlanguage: en\n---\n# Card\n");
  EXPECT_TRUE(report.errors.empty());
  EXPECT_TRUE(report.warnings.empty());
}

TEST(CardMetadata, MissingOrEmptyMetadataIsAWarning) {
  for (const char* card : {"# Just a title\n", "---\n---\n# Card\n", ""}) {
    auto report = validate_card_metadata(card);
    EXPECT_TRUE(report.errors.empty()) << card;
    ASSERT_EQ(report.warnings.size(), 1u) << card;
    EXPECT_NE(report.warnings[0].find("Empty or missing yaml metadata"), std::string::npos);
  }
}

TEST(CardMetadata, SyntaxErrorsNameTheCardLine) {
  auto report = validate_card_metadata("---\nlicense: mit\ntags: [a, b\n---\n");
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_NE(report.errors[0].find("Invalid YAML at line"), std::string::npos) << report.errors[0];
}

TEST(CardMetadata, FieldTypesAreChecked) {
  auto report = validate_card_metadata("---\nlicense: {name: x}\ntags: [a, [b]]\npipeline_tag: [x]\n"
                                       "model-index: nope\ninference: maybe\n---\n");
  std::vector<std::string> expected = {"\"license\" must be a string or a list of strings",
                                       "\"tags\"[1] must be a string", "\"pipeline_tag\" must be a string",
                                       "\"model-index\" must be a list", "\"inference\" must be a boolean or a mapping"};
  EXPECT_EQ(report.errors, expected);
}

TEST(CardMetadata, RootMustBeAMappingWithoutDuplicates) {
  EXPECT_EQ(validate_card_metadata("---\n- a\n- b\n---\n").errors.size(), 1u);
  auto duplicated = validate_card_metadata("---\nlicense: mit\nlicense: apache-2.0\n---\n");
  ASSERT_EQ(duplicated.errors.size(), 1u);
  EXPECT_EQ(duplicated.errors[0], "Duplicated metadata key \"license\" at line 3");
}

TEST(CardMetadata, AnUnclosedBlockIsAnError) {
  auto report = validate_card_metadata("---\nlicense: mit\n# Card\n");
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_NE(report.errors[0].find("never closed"), std::string::npos);
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::protocol
