// Where the system keeps the CA certificates that HTTPS connections trust (docs/install.md, "TLS").
//
// The programs and the Python module of the wheels carry their own libcurl and OpenSSL, which
// know no system's certificate paths; a plain build's libcurl knows its own distribution's. Both
// ask here: an environment variable the user set wins, then the first bundle file of the known
// distribution layouts that exists.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kb::util {

// The variables read, in order: SSL_CERT_FILE (OpenSSL, httpx), REQUESTS_CA_BUNDLE (requests),
// CURL_CA_BUNDLE (curl). An empty value is skipped.
const std::vector<std::string>& ca_bundle_variables();

// The bundle files of the known layouts, in order: Debian/Ubuntu/Arch, Fedora/RHEL, RHEL's
// extracted trust, openSUSE, Alpine.
const std::vector<std::filesystem::path>& ca_bundle_candidates();

// The bundle to use: the first set variable (even when its file is missing: the user asked for
// it, and the TLS error names it), else the first candidate that exists, else none (the TLS
// library's own default).
std::optional<std::filesystem::path> find_ca_bundle(
    const std::function<std::optional<std::string>(const std::string&)>& getenv,
    const std::vector<std::filesystem::path>& candidates);

// find_ca_bundle with the process environment and ca_bundle_candidates(), looked up once.
const std::optional<std::filesystem::path>& system_ca_bundle();

}  // namespace kb::util
