// OpenSSL-backed hashing and base64 (see hash.h).
#include "util/hash.h"

#include <fstream>
#include <openssl/evp.h>

namespace kb::util {

namespace {
const EVP_MD* digest_of(HashAlgorithm algorithm) {
  switch (algorithm) {
    case HashAlgorithm::sha1: return EVP_sha1();
    case HashAlgorithm::sha256: return EVP_sha256();
    case HashAlgorithm::sha512: return EVP_sha512();
  }
  return EVP_sha256();
}
}  // namespace

Hasher::Hasher(HashAlgorithm algorithm) : context_(EVP_MD_CTX_new()) {
  EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(context_), digest_of(algorithm), nullptr);
}

Hasher::~Hasher() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(context_)); }

void Hasher::update(std::string_view data) {
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(context_), data.data(), data.size());
}

std::string Hasher::finish() {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(context_), out, &length);
  return std::string(reinterpret_cast<const char*>(out), length);
}

std::string hash_bytes(HashAlgorithm algorithm, std::string_view data) {
  Hasher hasher(algorithm);
  hasher.update(data);
  return hasher.finish();
}

Result<std::string> hash_file(HashAlgorithm algorithm, const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(ErrorKind::io, "Cannot open `" + path.string() + "` for reading");
  Hasher hasher(algorithm);
  std::string buffer(1 << 20, '\0');
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    hasher.update(std::string_view(buffer.data(), static_cast<size_t>(in.gcount())));
  }
  if (in.bad()) return Error(ErrorKind::io, "Cannot read from `" + path.string() + "`");
  return hasher.finish();
}

std::string to_hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string base64_encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

Result<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return Error(ErrorKind::generic, "invalid base64 length");
  std::string out(3 * text.size() / 4 + 1, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return Error(ErrorKind::generic, "invalid base64");
  size_t padding = 0;
  if (!text.empty() && text.back() == '=') ++padding;
  if (text.size() > 1 && text[text.size() - 2] == '=') ++padding;
  out.resize(static_cast<size_t>(n) - padding);
  return out;
}

std::string sha256_hex(std::string_view data) { return to_hex(hash_bytes(HashAlgorithm::sha256, data)); }

std::string git_blob_sha1(std::string_view content) {
  Hasher hasher(HashAlgorithm::sha1);
  std::string header = "blob " + std::to_string(content.size());
  hasher.update(std::string_view(header.data(), header.size() + 1));  // includes the NUL
  hasher.update(content);
  return to_hex(hasher.finish());
}

}  // namespace kb::util
