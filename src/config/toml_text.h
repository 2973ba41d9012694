// Spelling of TOML scalars and keys for the files we write (basic strings with escapes, bare
// keys where allowed), shared by the writer and by diagnostics that name keys.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kb::config {

// A TOML basic string literal: "..." with \" \\ and control characters escaped.
std::string toml_string(std::string_view text);
// `key` as written in a TOML key path: bare when [A-Za-z0-9_-]+, else a quoted string.
std::string toml_key(std::string_view key);
// ["a", "b"]
std::string toml_string_array(const std::vector<std::string>& items);

}  // namespace kb::config
