// The build.toml schemas the reader understands (docs/build-toml.md): edition 5 and the two
// legacy shapes without a `general.edition` key.
#pragma once

#include <string_view>

namespace kb::config {

enum class Edition { v3, v4, v5 };

inline std::string_view to_string(Edition edition) {
  switch (edition) {
    case Edition::v3: return "v3";
    case Edition::v4: return "v4";
    case Edition::v5: return "edition 5";
  }
  return "edition 5";
}

}  // namespace kb::config
