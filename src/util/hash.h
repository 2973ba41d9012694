// Hashes and encodings used across the pipeline: SHA-256/512 (metadata digests, LFS oids),
// git blob SHA-1 (Hub oids), base64 and hex.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kb::util {

enum class HashAlgorithm { sha1, sha256, sha512 };

// Raw digest bytes of `data`.
std::string hash_bytes(HashAlgorithm algorithm, std::string_view data);
// Raw digest bytes of a file's content, streamed.
Result<std::string> hash_file(HashAlgorithm algorithm, const std::filesystem::path& path);

// Incremental hashing for streamed content.
class Hasher {
 public:
  explicit Hasher(HashAlgorithm algorithm);
  ~Hasher();
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;
  void update(std::string_view data);
  std::string finish();  // raw digest bytes

 private:
  void* context_;
};

std::string to_hex(std::string_view bytes);
std::string base64_encode(std::string_view bytes);
Result<std::string> base64_decode(std::string_view text);

std::string sha256_hex(std::string_view data);
// Git object id of a blob with this content: sha1("blob <size>\0" + content), hex.
std::string git_blob_sha1(std::string_view content);

}  // namespace kb::util
