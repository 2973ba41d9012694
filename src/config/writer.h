// The edition-5 serializer: BuildConfig -> build.toml text in the schema's key order
// (docs/build-toml.md), used by `update-build` and `init`. Comments of an original file can be
// carried over by anchoring them to key paths (see toml_comments.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "config/model.h"

namespace kb::config {

// Comments to re-emit, keyed by anchor: the dotted path of a table header ("general",
// "kernel.relu") or of a key ("general.name", "kernel.relu.src"), keys spelled as toml_key().
struct TomlComments {
  std::map<std::string, std::vector<std::string>> leading;  // whole lines before the anchor
  std::map<std::string, std::string> trailing;             // "# ..." after the anchor's line
  std::vector<std::string> final_lines;                     // after everything else
};

// Edition-5 text; absent optional keys are omitted, Versions normalised, torch-noarch
// capabilities use the underscore spelling that upstream reads.
std::string to_toml(const BuildConfig& config);
std::string to_toml(const BuildConfig& config, const TomlComments& comments);

}  // namespace kb::config
