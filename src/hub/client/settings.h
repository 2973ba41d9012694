// Where the Hub is and who we are: HF_ENDPOINT (default https://huggingface.co, trailing '/'
// stripped) and the token from HF_TOKEN, else the huggingface_hub token file
// ($HF_HOME/token, HF_HOME defaulting to ~/.cache/huggingface). Plus token redaction, used on
// every message that might contain a URL or header.
#pragma once

#include <optional>
#include <string>

namespace kb::hub::client {

inline constexpr const char* kDefaultEndpoint = "https://huggingface.co";
// The User-Agent of a request when the caller names none (the CLIs, or the Python package with
// HF_HUB_DISABLE_TELEMETRY set, whose user agent is then empty).
inline constexpr const char* kDefaultUserAgent = "kernel-builder (libcurl)";

struct HubSettings {
  std::string endpoint = kDefaultEndpoint;
  std::optional<std::string> token;
  bool endpoint_from_env = false;  // HF_ENDPOINT was set
  // Sent as User-Agent; empty means kDefaultUserAgent. The Python package passes the agent it
  // computes (kernels._system.user_agent: caller parts, kernels/<version>, python/…, torch/…).
  std::string user_agent = {};
};

HubSettings settings_from_environment();

// Replaces every occurrence of `token` (and any "Bearer ..." value and `token=` query value)
// in `text` with "***".
std::string redact(const std::string& text, const std::optional<std::string>& token);

// "scheme://host[:port]" of a URL (lower-cased scheme and host), for same-origin checks.
std::string origin_of(const std::string& url);

}  // namespace kb::hub::client
