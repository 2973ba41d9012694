// `kernel-builder upload` (docs/hub-api.md, docs/cli.md): publishes discovered build variants, the
// card and benchmarks to a Hub repository. The flow is a library function so that
// `build-and-upload` and tests share it; all printing goes through UploadReporter.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hub/client/hub_client.h"
#include "util/result.h"

namespace kb::hub::publish {

struct UploadOptions {
  std::filesystem::path kernel_dir = ".";
  std::optional<std::string> repo_id;
  std::optional<std::string> branch;
  bool is_private = false;
  std::string repo_type = "kernel";
  bool create_pr = false;
  int parallelism = 4;
};

struct UploadReporter {
  std::function<void(const std::string&)> info;      // stderr lines
  std::function<void(const std::string&)> warning;   // "warning: ..." lines
  // Files committed so far on a branch, out of its total.
  std::function<void(const std::string& branch, size_t done, size_t total)> progress;
};

struct PullRequest {
  std::string branch;
  std::string url;
};

struct UploadResult {
  std::string status;  // "uploaded", "no_changes", "pull_request_created"
  std::string repo_id;
  std::string branch;
  std::optional<std::string> url;  // set when uploaded
  std::vector<PullRequest> pull_requests;
};

util::Result<UploadResult> upload(client::HubClient& hub, const UploadOptions& options, const UploadReporter& reporter);

// The --output-json document (pretty, trailing newline).
std::string render_upload_json(const UploadResult& result);

// The public web base for user-facing URLs: the configured endpoint when HF_ENDPOINT is set,
// else https://hf.co, as upstream prints it.
std::string public_base(const client::HubSettings& settings);

// Repo id from a create-repo URL: strip the endpoint and a `kernels/` prefix; else `fallback`.
std::string repo_id_from_url(const std::string& url, const std::string& endpoint, const std::string& fallback);

}  // namespace kb::hub::publish
