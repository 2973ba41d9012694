// Hub settings from the environment; redaction of secrets.
#include "hub/client/settings.h"

#include <cstdlib>
#include <filesystem>

#include "util/fs.h"
#include "util/strings.h"

namespace kb::hub::client {

namespace {

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::filesystem::path hf_home() {
  std::string home = env_or_empty("HF_HOME");
  if (!home.empty()) return home;
  std::string xdg = env_or_empty("XDG_CACHE_HOME");
  if (!xdg.empty()) return std::filesystem::path(xdg) / "huggingface";
  return std::filesystem::path(env_or_empty("HOME")) / ".cache" / "huggingface";
}

}  // namespace

HubSettings settings_from_environment() {
  HubSettings settings;
  std::string endpoint = std::string(util::trim(env_or_empty("HF_ENDPOINT")));
  if (!endpoint.empty()) {
    while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
    settings.endpoint = endpoint;
    settings.endpoint_from_env = true;
  }
  std::string token = std::string(util::trim(env_or_empty("HF_TOKEN")));
  if (token.empty()) {
    auto from_file = util::read_file(hf_home() / "token");
    if (from_file) token = std::string(util::trim(*from_file));
  }
  if (!token.empty()) settings.token = token;
  return settings;
}

std::string redact(const std::string& text, const std::optional<std::string>& token) {
  std::string out = text;
  if (token && !token->empty()) {
    for (size_t at = out.find(*token); at != std::string::npos; at = out.find(*token, at + 3)) {
      out.replace(at, token->size(), "***");
    }
  }
  // Defence in depth: values after "Bearer " and "token=" are secrets whatever they are.
  for (const std::string marker : {"Bearer ", "token="}) {
    for (size_t at = out.find(marker); at != std::string::npos; at = out.find(marker, at + 1)) {
      size_t start = at + marker.size();
      size_t end = out.find_first_of(" &\"'\n\r\t;,", start);
      if (end == std::string::npos) end = out.size();
      if (end > start && out.compare(start, end - start, "***") != 0) out.replace(start, end - start, "***");
    }
  }
  return out;
}

std::string origin_of(const std::string& url) {
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return "";
  size_t host_end = url.find_first_of("/?#", scheme_end + 3);
  return util::to_lower(url.substr(0, host_end));
}

}  // namespace kb::hub::client
