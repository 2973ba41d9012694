// HTTP helper implementations.
#include "hub/server/http_support.h"

#include <fcntl.h>
#include <unistd.h>

#include "util/strings.h"

namespace kb::hub::server {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      int high = hex_value(text[i + 1]);
      int low = hex_value(text[i + 2]);
      if (high >= 0 && low >= 0) {
        out += static_cast<char>(high * 16 + low);
        i += 2;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

std::vector<std::string> raw_segments(const std::string& target) {
  std::string path = target.substr(0, target.find('?'));
  std::vector<std::string> out;
  for (auto& part : util::split(path, '/')) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

bool bool_param(const Request& request, const std::string& name, bool fallback) {
  if (!request.has_param(name.c_str())) return fallback;
  std::string value = util::to_lower(request.get_param_value(name.c_str()));
  if (value == "true" || value == "1") return true;
  if (value == "false" || value == "0") return false;
  return fallback;
}

std::string bearer_token(const Request& request) {
  std::string header = request.get_header_value("Authorization");
  const std::string prefix = "bearer ";
  if (header.size() > prefix.size() && util::to_lower(header.substr(0, prefix.size())) == prefix) {
    return std::string(util::trim(header.substr(prefix.size())));
  }
  return "";
}

void reply_json(Response& response, int status, const nlohmann::json& body) {
  response.status = status;
  response.set_content(body.dump(), "application/json");
}

void reply_error(Response& response, int status, const std::string& code, const std::string& message) {
  if (!code.empty()) response.set_header("X-Error-Code", code);
  response.set_header("X-Error-Message", message);
  reply_json(response, status, {{"error", message}});
}

void reply_error(Response& response, const util::Error& error) {
  reply_error(response, error.status != 0 ? error.status : 500, error.code, error.message);
}

std::string loggable_path(const Request& request) {
  std::string path = request.target.substr(0, request.target.find('?'));
  // LFS upload URLs carry a one-time ticket: a credential, so it is masked like a token.
  const std::string lfs = "/api/kernel-hub/lfs/";
  if (path.rfind(lfs, 0) == 0) {
    size_t end = path.find('/', lfs.size());
    path = lfs + "***" + (end == std::string::npos ? "" : path.substr(end));
  }
  return path;
}

OpenFile::OpenFile(const std::filesystem::path& path) : fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}

OpenFile::~OpenFile() {
  if (fd >= 0) ::close(fd);
}

std::string web_prefix(const storage::RepoId& repo) { return repo.type == "kernel" ? "/kernels/" : "/"; }

}  // namespace kb::hub::server
