// Golden tests over tests/corpus: every valid/<case>.toml must parse (its warnings and its
// edition-5 serialisation are compared with <case>.expected, and the serialisation must read back
// as itself); every invalid/<case>.toml must fail with exactly the diagnostics in <case>.expected.
// KB_REFRESH_GOLDEN=1 rewrites the .expected files instead (tests/corpus/refresh-golden).
#include <algorithm>
#include <cstdlib>
#include <map>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "config/reader.h"
#include "config/writer.h"
#include "util/fs.h"

namespace kb::config {
namespace {
namespace KB_UNITY_ID {

namespace fs = std::filesystem;

std::vector<fs::path> cases(const std::string& kind) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(fs::path(KB_TEST_DATA_DIR) / "corpus" / kind)) {
    if (entry.path().extension() == ".toml") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string edition_name(Edition edition) {
  switch (edition) {
    case Edition::v3: return "v3";
    case Edition::v4: return "v4";
    case Edition::v5: return "5";
  }
  return "?";
}

// The golden text of one case.
std::string describe(const fs::path& path, bool expect_valid) {
  std::string text = util::read_file(path).value();
  std::string name = path.filename().string();
  ParseOutcome outcome = parse_build_toml(text, name);
  std::string out;
  if (outcome.parsed) {
    out += "edition: " + edition_name(outcome.parsed->edition) + "\n";
    if (outcome.parsed->license_missing) out += "license: missing\n";
  }
  if (!outcome.errors.empty()) out += "--- errors\n" + render_diagnostics(outcome.errors, text, "error");
  if (!outcome.warnings.empty()) out += "--- warnings\n" + render_diagnostics(outcome.warnings, text, "warning");
  if (outcome.parsed && expect_valid) out += "--- edition 5\n" + to_toml(outcome.parsed->config);
  return out;
}

void check_case(const fs::path& path, bool expect_valid) {
  SCOPED_TRACE(path.string());
  std::string text = util::read_file(path).value();
  ParseOutcome outcome = parse_build_toml(text, path.filename().string());
  EXPECT_EQ(outcome.parsed.has_value(), expect_valid);
  if (expect_valid) {
    EXPECT_TRUE(outcome.errors.empty());
  } else {
    EXPECT_FALSE(outcome.errors.empty());
  }
  if (outcome.parsed) {
    std::string written = to_toml(outcome.parsed->config);
    ParseOutcome again = parse_build_toml(written, "written.toml");
    ASSERT_TRUE(again.parsed.has_value()) << render_diagnostics(again.errors, written, "error");
    EXPECT_EQ(again.parsed->edition, Edition::v5);
    EXPECT_EQ(to_toml(again.parsed->config), written);
  }
  fs::path expected_path = path;
  expected_path.replace_extension(".expected");
  std::string actual = describe(path, expect_valid);
  if (const char* refresh = std::getenv("KB_REFRESH_GOLDEN"); refresh != nullptr && refresh[0] == '1') {
    ASSERT_TRUE(util::write_file_atomic(expected_path, actual).ok());
    return;
  }
  auto expected = util::read_file(expected_path);
  ASSERT_TRUE(expected.ok()) << "missing " << expected_path << "; run tests/corpus/refresh-golden";
  EXPECT_EQ(actual, *expected);
}

TEST(ParseBuildTomlCorpus, ValidCasesParseAndMatchGolden) {
  auto valid = cases("valid");
  EXPECT_GE(valid.size(), 40u);
  for (const auto& path : valid) check_case(path, true);
}

TEST(ParseBuildTomlCorpus, InvalidCasesFailWithGoldenDiagnostics) {
  auto invalid = cases("invalid");
  EXPECT_GE(invalid.size(), 60u);
  for (const auto& path : invalid) check_case(path, false);
}

TEST(ParseBuildTomlCorpus, InvalidCasesEachTripDifferentErrors) {
  std::map<std::string, std::string> seen;
  for (const auto& path : cases("invalid")) {
    std::string text = util::read_file(path).value();
    ParseOutcome outcome = parse_build_toml(text, "x.toml");
    ASSERT_FALSE(outcome.errors.empty()) << path;
    // The error list (and where the first one points) identifies the rule(s) a case trips.
    std::string signature = std::to_string(outcome.errors.front().line);
    for (const auto& error : outcome.errors) signature += "|" + error.message;
    auto [it, inserted] = seen.emplace(signature, path.filename().string());
    EXPECT_TRUE(inserted) << path.filename() << " trips the same errors as " << it->second << ": " << signature;
  }
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::config
