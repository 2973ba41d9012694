// AWS Signature Version 4 presigning (see sigv4.h).
#include "hub/storage/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <ctime>

#include "util/hash.h"

namespace kb::hub::storage::sigv4 {

namespace {

std::string hmac_sha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), out, &length);
  return std::string(reinterpret_cast<const char*>(out), length);
}

}  // namespace

std::string uri_encode(std::string_view text, bool keep_slash) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '_' || c == '.' || c == '~';
    if (unreserved || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string amz_date(std::chrono::system_clock::time_point when) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(when);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &utc);
  return text;
}

std::string signature(std::string_view secret_key, std::string_view amz_date, std::string_view region,
                      std::string_view service, std::string_view canonical_request) {
  std::string_view date = amz_date.substr(0, 8);
  std::string scope = std::string(date) + "/" + std::string(region) + "/" + std::string(service) + "/aws4_request";
  std::string to_sign = "AWS4-HMAC-SHA256\n" + std::string(amz_date) + "\n" + scope + "\n" +
                        util::sha256_hex(canonical_request);
  std::string key = hmac_sha256("AWS4" + std::string(secret_key), date);
  key = hmac_sha256(key, region);
  key = hmac_sha256(key, service);
  key = hmac_sha256(key, "aws4_request");
  return util::to_hex(hmac_sha256(key, to_sign));
}

std::string presign(const PresignRequest& request) {
  std::string scope = request.amz_date.substr(0, 8) + "/" + request.region + "/" + request.service + "/aws4_request";
  // Already in canonical order (sorted by name) and encoding, so it is both the canonical query
  // string and the URL's query.
  std::string query = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=" +
                      uri_encode(request.access_key + "/" + scope, false) + "&X-Amz-Date=" + request.amz_date +
                      "&X-Amz-Expires=" + std::to_string(request.expires_seconds) + "&X-Amz-SignedHeaders=host";
  std::string canonical = request.method + "\n" + request.path + "\n" + query + "\nhost:" + request.host +
                          "\n\nhost\nUNSIGNED-PAYLOAD";
  return request.scheme + "://" + request.host + request.path + "?" + query + "&X-Amz-Signature=" +
         signature(request.secret_key, request.amz_date, request.region, request.service, canonical);
}

}  // namespace kb::hub::storage::sigv4
