// Small HTTP helpers of the Hub server: percent-decoding of raw path segments, boolean query
// parameters in every spelling clients send, JSON error replies with X-Error-Code, bearer
// and tokens.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hub/server/http_message.h"
#include <nlohmann/json.hpp>

#include "hub/storage/repo_store.h"

namespace kb::hub::server {

std::string percent_decode(std::string_view text);

// Raw path (target without query) split at '/', each segment still encoded; empty segments dropped.
std::vector<std::string> raw_segments(const std::string& target);

// true/false, True/False, 1/0 (case-insensitive); absent or unrecognised -> fallback.
bool bool_param(const Request& request, const std::string& name, bool fallback = false);

// Token from "Authorization: Bearer <token>" (empty if none).
std::string bearer_token(const Request& request);

void reply_json(Response& response, int status, const nlohmann::json& body);
// {"error": message} plus X-Error-Code when `code` is not empty.
void reply_error(Response& response, int status, const std::string& code, const std::string& message);
// An error that carries the answer's HTTP status and Hub error code (storage/storage_errors.h);
// an error without a status is the server's own failure (500).
void reply_error(Response& response, const util::Error& error);

// The access-log form of a request target: the path only, since query strings may carry
// credentials; tokens never appear because headers are never logged.
std::string loggable_path(const Request& request);

// Where a repo's web pages are under the server's public URL: /kernels/<id> for kernels, /<id> for
// models, as on huggingface.co.
std::string web_prefix(const storage::RepoId& repo);

// A read-only descriptor owned for the life of a streamed response: files are served with pread,
// so no file is ever held in memory. `fd` is -1 when the file could not be opened.
struct OpenFile {
  int fd = -1;
  explicit OpenFile(const std::filesystem::path& path);
  ~OpenFile();
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
};

}  // namespace kb::hub::server
