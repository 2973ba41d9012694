// Helpers shared by the config unit tests: a valid edition-5 base file and parse shortcuts.
#pragma once

#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "config/reader.h"

namespace kb::config::testing {

inline const std::string general_v5 =
    "[general]\n"
    "name = \"relu\"\n"
    "version = 1\n"
    "edition = 5\n"
    "license = \"Apache-2.0\"\n"
    "backends = [\"cuda\"]\n";
inline const std::string torch_section = "\n[torch]\nsrc = [\"torch-ext/torch_binding.cpp\"]\n";
inline const std::string cuda_kernel =
    "\n[kernel.relu]\nbackend = \"cuda\"\ndepends = [\"torch\"]\nsrc = [\"relu/relu.cu\"]\n";

inline ParseOutcome parse(const std::string& text) { return parse_build_toml(text, "build.toml"); }

// The single error message of `text` (fails the test when there is not exactly one error).
inline std::string only_error(const std::string& text) {
  ParseOutcome outcome = parse(text);
  EXPECT_EQ(outcome.errors.size(), 1u) << render_diagnostics(outcome.errors, text, "error");
  return outcome.errors.empty() ? std::string() : outcome.errors.front().message;
}

inline bool has_warning(const ParseOutcome& outcome, std::string_view message) {
  for (const auto& warning : outcome.warnings) {
    if (warning.message == message) return true;
  }
  return false;
}

}  // namespace kb::config::testing
