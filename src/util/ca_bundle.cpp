#include "util/ca_bundle.h"

#include <cstdlib>
#include <system_error>

namespace kb::util {

const std::vector<std::string>& ca_bundle_variables() {
  static const std::vector<std::string> names = {"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"};
  return names;
}

const std::vector<std::filesystem::path>& ca_bundle_candidates() {
  static const std::vector<std::filesystem::path> paths = {
      "/etc/ssl/certs/ca-certificates.crt",                 // Debian, Ubuntu, Arch, Gentoo
      "/etc/pki/tls/certs/ca-bundle.crt",                   // Fedora, RHEL, CentOS, Amazon Linux
      "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",  // RHEL 7+ (the file the above links to)
      "/etc/ssl/ca-bundle.pem",                             // openSUSE, SLES
      "/etc/ssl/cert.pem",                                  // Alpine
  };
  return paths;
}

std::optional<std::filesystem::path> find_ca_bundle(
    const std::function<std::optional<std::string>(const std::string&)>& getenv,
    const std::vector<std::filesystem::path>& candidates) {
  for (const auto& name : ca_bundle_variables()) {
    auto value = getenv(name);
    if (value && !value->empty()) return std::filesystem::path(*value);
  }
  for (const auto& path : candidates) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) return path;
  }
  return std::nullopt;
}

const std::optional<std::filesystem::path>& system_ca_bundle() {
  static const std::optional<std::filesystem::path> found = find_ca_bundle(
      [](const std::string& name) -> std::optional<std::string> {
        const char* value = std::getenv(name.c_str());
        return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
      },
      ca_bundle_candidates());
  return found;
}

}  // namespace kb::util
