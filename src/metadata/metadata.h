// The metadata.json model of one variant directory (docs/build-output.md): reading with every
// validation rule of the spec, and writing in the canonical byte-exact form (2-space indent,
// keys in the spec's order, no trailing newline) so rebuilt metadata is reproducible.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/backend.h"
#include "util/result.h"

namespace kb::metadata {

enum class DigestAlgorithm { sha256, sha512 };

std::string_view to_string(DigestAlgorithm algorithm);  // "sha256" / "sha512"

// `digest`: relative path ('/' separated) -> standard base64 of the raw file hash.
struct Digest {
  DigestAlgorithm algorithm = DigestAlgorithm::sha256;
  std::map<std::string, std::string> files;  // std::map: sorted by key, byte order
  friend bool operator==(const Digest&, const Digest&) = default;
};

// A git state: an object id (40 or 64 lower-case hex digits) and whether the tree was dirty.
struct GitState {
  std::string commit;
  bool dirty = false;
  friend bool operator==(const GitState&, const GitState&) = default;
};

struct BuilderProvenance {
  std::string version;
  std::optional<GitState> git;  // the builder's own source, when known
  friend bool operator==(const BuilderProvenance&, const BuilderProvenance&) = default;
};

struct Provenance {
  std::optional<BuilderProvenance> kernel_builder;
  std::optional<GitState> kernel;  // omitted when the project is not a git repository
  friend bool operator==(const Provenance&, const Provenance&) = default;
  // Either git state dirty.
  bool dirty() const;
};

struct KernelDependency {
  std::string repo_id;
  std::optional<int64_t> version;
  std::optional<std::string> revision;
  friend bool operator==(const KernelDependency&, const KernelDependency&) = default;
};

struct Metadata {
  std::string name;
  std::string id;  // the ops id
  int64_t version = 1;
  // `kernels-minver`: the oldest `kernels` that can load the variant (a dotted version, checked
  // to parse as one when read); nullopt when the key is absent.
  std::optional<std::string> kernels_minver;
  std::string license;
  std::optional<std::string> upstream;
  std::optional<std::string> source;
  std::vector<std::string> python_depends;
  std::vector<KernelDependency> kernel_depends;
  config::Backend backend = config::Backend::cpu;
  std::vector<std::string> archs;  // empty: key omitted
  std::optional<Digest> digest;
  std::optional<Provenance> provenance;
  friend bool operator==(const Metadata&, const Metadata&) = default;
};

// Parses metadata.json text; unknown keys are ignored, every listed constraint is enforced.
util::Result<Metadata> parse_metadata(std::string_view text);
// Reads and parses `<variant_dir>/metadata.json` (or the given file).
util::Result<Metadata> read_metadata_file(const std::string& path);

// Canonical serialisation (docs/build-output.md "Writing format").
std::string render_metadata(const Metadata& metadata);

// True when `oid` is 40 or 64 hex digits (either case).
bool is_valid_oid(std::string_view oid);

}  // namespace kb::metadata
