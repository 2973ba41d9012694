// Variant-directory digests (see digest.h).
#include "metadata/digest.h"

#include <algorithm>

#include "util/hash.h"
#include "util/strings.h"

namespace kb::metadata {

namespace fs = std::filesystem;
using util::Error;
using util::ErrorKind;
using util::Result;

bool excluded_from_digest(const std::string& relative) {
  if (relative == "metadata.json" || relative == "metadata.json.sigstore") return true;
  if (util::ends_with(relative, ".pyc")) return true;
  for (const auto& part : util::split(relative, '/')) {
    if (part == "__pycache__") return true;
  }
  return false;
}

// (Checks the path, not the cached directory entry, so symlinks are followed as the Hub cache
// needs; and names the link itself: fs::relative would resolve it to its target.)
std::vector<std::string> list_variant_files(const fs::path& root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (fs::is_regular_file(it->path(), ec)) out.push_back(it->path().lexically_relative(root).generic_string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {


}  // namespace

Result<Digest> compute_digest(const fs::path& variant_dir, DigestAlgorithm algorithm) {
  Digest digest;
  digest.algorithm = algorithm;
  auto hash_algorithm = algorithm == DigestAlgorithm::sha256 ? util::HashAlgorithm::sha256 : util::HashAlgorithm::sha512;
  for (const auto& relative : list_variant_files(variant_dir)) {
    if (excluded_from_digest(relative)) continue;
    KB_TRY_ASSIGN(auto hash, util::hash_file(hash_algorithm, variant_dir / relative));
    digest.files[relative] = util::base64_encode(hash);
  }
  return digest;
}

std::string algorithm_display_name(DigestAlgorithm algorithm) {
  return algorithm == DigestAlgorithm::sha256 ? "SHA256" : "SHA512";
}

std::string DigestViolation::to_string() const {
  switch (kind) {
    case Kind::algorithm_mismatch: return "Algorithm mismatch: expected: " + expected + ", got: " + got;
    case Kind::missing_file: return "Missing file: " + path;
    case Kind::hash_mismatch: return "File hash mismatch for " + path + ": expected: " + expected + ", got: " + got;
    case Kind::unknown_file: return "Unknown file: " + path;
  }
  return {};
}

std::vector<DigestViolation> find_digest_violations(const Digest& expected, const Digest& actual) {
  using Kind = DigestViolation::Kind;
  std::vector<DigestViolation> out;
  if (expected.algorithm != actual.algorithm) {
    out.push_back({Kind::algorithm_mismatch, "", algorithm_display_name(expected.algorithm),
                   algorithm_display_name(actual.algorithm)});
  }
  for (const auto& [path, hash] : expected.files) {
    auto it = actual.files.find(path);
    if (it == actual.files.end()) {
      out.push_back({Kind::missing_file, path, "", ""});
    } else if (it->second != hash) {
      out.push_back({Kind::hash_mismatch, path, hash, it->second});
    }
  }
  for (const auto& [path, hash] : actual.files) {
    if (!expected.files.count(path)) out.push_back({Kind::unknown_file, path, "", ""});
  }
  return out;
}

std::vector<std::string> digest_violations(const Digest& expected, const Digest& actual) {
  std::vector<std::string> out;
  for (const auto& violation : find_digest_violations(expected, actual)) out.push_back(violation.to_string());
  return out;
}

Error digest_mismatch(const std::vector<std::string>& violations) {
  return Error(ErrorKind::integrity, "kernel does not match the expected digest:\n" + util::join(violations, "\n"));
}

util::Status verify_digest(const fs::path& variant_dir, const Digest& expected) {
  KB_TRY_ASSIGN(auto actual, compute_digest(variant_dir, expected.algorithm));
  auto violations = digest_violations(expected, actual);
  if (violations.empty()) return {};
  return digest_mismatch(violations);
}

}  // namespace kb::metadata
