// The variant table of a repository page: one row per build/<variant>/ directory of a revision,
// with what its name says (src/variant: kind, Torch version, compute backend and version, CPU
// and OS) and what its metadata.json says (src/metadata: backend, GPU archs), its size, and
// whether the files stored on the Hub match the digest metadata.json records (the check-builds
// rule, metadata::digest_violations). Pure: file contents come through the caller's functions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "metadata/metadata.h"
#include "util/result.h"

namespace kb::hub::web {

// A file of a repository revision.
struct RepoFile {
  std::string path;
  uint64_t size = 0;
  std::string sha256;  // hex
};

enum class DigestStatus {
  verified,     // metadata.json's digest lists exactly the stored files, with their hashes
  mismatch,     // it does not (detail: the first violation)
  no_digest,    // metadata.json records none
  no_metadata,  // no metadata.json in the directory
  invalid,      // metadata.json does not parse (detail: why)
};
std::string_view to_string(DigestStatus status);  // "verified", "mismatch", "no digest", ...

struct VariantRow {
  std::string name;                // directory name
  std::string kind;                // "torch", "stable-abi", "tvm-ffi", "noarch"; "unknown" for other names
  std::string backend;             // from metadata.json, else from the name; "" if neither says
  std::string framework;           // "Torch 2.11", "Torch stable ABI 2.11", "TVM-FFI 0.1", "any"
  std::string compute;             // "CUDA 12.6", "ROCm 7.1", "CPU", ...
  std::string platform;            // "x86_64-linux"; "any" for noarch
  std::vector<std::string> archs;  // GPU archs from metadata.json
  size_t files = 0;
  uint64_t size = 0;
  DigestStatus digest = DigestStatus::no_metadata;
  std::string detail;  // why, for mismatch / invalid
};

struct VariantSources {
  // The bytes of a file (metadata.json only).
  std::function<util::Result<std::string>(const RepoFile&)> read;
  // The raw digest of a file's content with `algorithm` (sha512; sha256 digests come from
  // RepoFile::sha256 without reading anything).
  std::function<util::Result<std::string>(const RepoFile&, metadata::DigestAlgorithm)> hash;
};

// The variant directory names under build/ among `paths`, sorted, each once (reads nothing).
std::vector<std::string> variant_names(const std::vector<std::string>& paths);

// Rows for the variant directories under build/ among `files`, sorted by name.
std::vector<VariantRow> variant_rows(const std::vector<RepoFile>& files, const VariantSources& sources);

}  // namespace kb::hub::web
