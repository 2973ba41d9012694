// Size parsing for command-line options. Hand-written because the grammar is four suffixes over
// an integer: no Debian library parses IEC sizes with the strictness wanted here (std::from_chars
// does the number, overflow included).
#include "util/size_text.h"

#include <array>
#include <charconv>
#include <cctype>

namespace kb::util {

namespace {

constexpr std::array<char, 4> suffixes = {'K', 'M', 'G', 'T'};

Error bad_size(std::string_view text, const std::string& why) {
  return Error(ErrorKind::usage, "Invalid size `" + std::string(text) + "`: " + why)
      .with_hint("write a byte count with an optional suffix K, M, G or T (powers of 1024), e.g. `64M` or `10GiB`");
}

}  // namespace

Result<uint64_t> parse_size(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])) != 0) ++digits;
  if (digits == 0) return bad_size(text, "expected a non-negative whole number of bytes");
  uint64_t number = 0;
  auto parsed = std::from_chars(text.data(), text.data() + digits, number);
  if (parsed.ec != std::errc()) return bad_size(text, "larger than 2^64-1 bytes");

  std::string_view unit = text.substr(digits);
  if (!unit.empty() && (unit.front() == '.' || unit.front() == ',')) {
    return bad_size(text, "expected a whole number of bytes, with no fraction");
  }
  unsigned shift = 0;
  if (!unit.empty()) {
    char letter = static_cast<char>(std::toupper(static_cast<unsigned char>(unit.front())));
    for (size_t i = 0; i < suffixes.size(); ++i) {
      if (letter == suffixes[i]) {
        shift = static_cast<unsigned>(10 * (i + 1));
        unit.remove_prefix(1);
      }
    }
    bool valid = unit.empty() || unit == "B" || (shift != 0 && unit == "iB");
    if (!valid) return bad_size(text, "unknown unit `" + std::string(text.substr(digits)) + "`");
  }
  if (shift != 0 && number > (UINT64_MAX >> shift)) return bad_size(text, "larger than 2^64-1 bytes");
  return number << shift;
}

std::string format_size(uint64_t bytes) {
  if (bytes == 0) return "0";
  unsigned level = 0;
  while (level < suffixes.size() && (bytes & 1023) == 0) {
    bytes >>= 10;
    ++level;
  }
  std::string text = std::to_string(bytes);
  if (level > 0) text += suffixes[level - 1];
  return text;
}

}  // namespace kb::util
