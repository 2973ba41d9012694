// Internal to the config library: a pre-scan that keeps toml++ 3.3 away from inputs that reach
// undefined behaviour inside it. Its whitespace classifier (`is_non_ascii_horizontal_whitespace`)
// hits `__builtin_unreachable` for most code points in U+00A1-U+0499, U+2C8E-U+3087 and
// U+FB36-U+FEFE; the parser calls it on characters outside strings, after a backslash in
// multi-line strings, and on the first character after a line-ending backslash. Found by
// fuzz/fuzz_build_toml. Every such position is either invalid TOML anyway (non-ASCII outside
// strings and comments, a non-ASCII escape) or absurd in a build.toml (non-ASCII text right
// after a line-ending backslash), so we report a syntax error ourselves instead.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kb::config::detail {

struct UnsafeCharacter {
  int line = 0;    // 1-based
  int column = 0;  // 1-based, in code points (like toml++)
  std::string message;
};

std::optional<UnsafeCharacter> find_unsafe_character(std::string_view text);

}  // namespace kb::config::detail
