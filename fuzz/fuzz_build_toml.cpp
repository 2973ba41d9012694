// libFuzzer target: arbitrary bytes as build.toml. Parsing must never crash, hang or trip a
// sanitizer; diagnostics must render; and every accepted file must survive the edition-5
// serializer: to_toml(config) parses again, as edition 5, to the same text.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "config/reader.h"
#include "config/writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  kb::config::ParseOutcome outcome = kb::config::parse_build_toml(text, "fuzz.toml");
  std::string rendered = kb::config::render_diagnostics(outcome.errors, text, "error") +
                         kb::config::render_diagnostics(outcome.warnings, text, "warning");
  if (!outcome.parsed) return 0;
  std::string written = kb::config::to_toml(outcome.parsed->config);
  kb::config::ParseOutcome again = kb::config::parse_build_toml(written, "written.toml");
  if (!again.parsed || again.parsed->edition != kb::config::Edition::v5 ||
      kb::config::to_toml(again.parsed->config) != written) {
    std::fprintf(stderr, "round trip failed for:\n%s\n", written.c_str());
    std::fputs(kb::config::render_diagnostics(again.errors, written, "error").c_str(), stderr);
    std::abort();
  }
  return 0;
}
