// The file digest of a variant directory (docs/build-output.md): computing it, and comparing an
// actual digest with the recorded one as an ordered list of violations.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "metadata/metadata.h"
#include "util/result.h"

namespace kb::metadata {

// The files of a variant directory as the digest sees them: sorted '/'-separated paths of regular
// files and symlinks to regular files, named by the link (its target's content counts); symlinks
// to directories are not entered. Includes metadata.json and what the digest excludes: this is
// also the list `upload` sends, so the digest covers exactly what is published.
std::vector<std::string> list_variant_files(const std::filesystem::path& variant_dir);

// Whether the digest leaves out `relative` (a path from list_variant_files): the top-level
// metadata.json / metadata.json.sigstore, `__pycache__` paths and `*.pyc` files.
bool excluded_from_digest(const std::string& relative);

// Hashes every regular file (and symlink to one) under `variant_dir`, excluding the top-level
// metadata.json / metadata.json.sigstore, `__pycache__` paths and `*.pyc` files.
util::Result<Digest> compute_digest(const std::filesystem::path& variant_dir,
                                    DigestAlgorithm algorithm = DigestAlgorithm::sha256);

// One way an actual digest deviates from the recorded one. `path` is empty for an algorithm
// mismatch; `expected`/`got` are the hashes of a hash mismatch, the algorithms of an algorithm
// mismatch ("SHA256"), and empty otherwise.
struct DigestViolation {
  enum class Kind { algorithm_mismatch, missing_file, hash_mismatch, unknown_file };
  Kind kind = Kind::missing_file;
  std::string path;
  std::string expected;
  std::string got;

  std::string to_string() const;  // the text of the violation in the mismatch error
  friend bool operator==(const DigestViolation&, const DigestViolation&) = default;
};

// The algorithm's name in violations ("SHA256", "SHA512").
std::string algorithm_display_name(DigestAlgorithm algorithm);

// Violations of `actual` against `expected`, in the spec's order (empty: match).
std::vector<DigestViolation> find_digest_violations(const Digest& expected, const Digest& actual);

// The texts of find_digest_violations.
std::vector<std::string> digest_violations(const Digest& expected, const Digest& actual);

// `kernel does not match the expected digest:` followed by one violation per line (integrity).
util::Error digest_mismatch(const std::vector<std::string>& violations);

// Computes the digest of `variant_dir` with the recorded algorithm and compares (digest_mismatch).
util::Status verify_digest(const std::filesystem::path& variant_dir, const Digest& expected);

}  // namespace kb::metadata
