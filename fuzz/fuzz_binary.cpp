// libFuzzer target of check-abi's binary reader (src/abi/binary.cpp): arbitrary bytes as an ELF
// (through libelf) or Mach-O file (read by hand), then the ABI rules on whatever was read. It must
// never crash, hang or trip ASan/UBSan; a malformed file is an error value.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "abi/binary.h"
#include "abi/check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto info = kb::abi::parse_binary(bytes, "fuzz-input");
  if (!info) return 0;
  kb::abi::CheckOptions options;
  options.torch_stable_abi = "2.10";
  auto violations = kb::abi::check_binary(*info, options);
  if (violations) {
    kb::abi::FileReport report;
    report.path = "fuzz-input";
    report.format_name = info->format_name;
    report.violations = *violations;
    (void)kb::abi::render_file_report(report, options);
  }
  return 0;
}
