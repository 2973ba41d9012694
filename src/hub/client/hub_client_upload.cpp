// Hub client: pre-upload, LFS batch uploads and ndjson commits.
#include <atomic>

#include <nlohmann/json.hpp>

#include "hub/client/hub_client.h"
#include "util/fs.h"
#include "util/hash.h"

namespace kb::hub::client {

using nlohmann::json;

namespace {
constexpr size_t kPreuploadChunk = 256;
constexpr size_t kLfsBatchChunk = 256;
}  // namespace

util::Result<std::vector<PreuploadAnswer>> HubClient::preupload(const RepoRef& repo, const std::string& revision,
                                                                const std::vector<PreuploadFile>& files,
                                                                bool create_pr) {
  std::vector<PreuploadAnswer> answers;
  for (size_t start = 0; start < files.size(); start += kPreuploadChunk) {
    json list = json::array();
    for (size_t i = start; i < std::min(files.size(), start + kPreuploadChunk); ++i) {
      list.push_back({{"path", files[i].path}, {"size", files[i].size}, {"sample", util::base64_encode(files[i].sample)}});
    }
    std::string url = api_url(repo, "/preupload/" + encode_revision(revision)) + (create_pr ? "?create_pr=1" : "");
    auto response = http_.send_expecting_ok({"POST", url, {{"Content-Type", "application/json"}}, json{{"files", list}}.dump(), {}, {}}, "pre-upload");
    if (!response) return std::move(response).error();
    json body = json::parse(response->body, nullptr, false);
    if (body.is_discarded() || !body.contains("files")) {
      return util::Error(util::ErrorKind::network, "Invalid pre-upload response from " + response->url);
    }
    for (const auto& f : body["files"]) {
      PreuploadAnswer answer;
      answer.path = f.value("path", "");
      answer.lfs = f.value("uploadMode", "regular") == "lfs";
      answer.should_ignore = f.value("shouldIgnore", false);
      if (f.contains("oid") && f["oid"].is_string()) answer.remote_oid = f["oid"].get<std::string>();
      answers.push_back(std::move(answer));
    }
  }
  return answers;
}

util::Status HubClient::upload_lfs(const RepoRef& repo, const std::string& revision,
                                   const std::vector<LfsObject>& objects, int parallelism,
                                   const ProgressCallback& progress) {
  struct Action {
    const LfsObject* object;
    std::string upload_href;
    std::vector<std::pair<std::string, std::string>> upload_headers;
    std::string verify_href;
  };
  std::vector<Action> actions;
  for (size_t start = 0; start < objects.size(); start += kLfsBatchChunk) {
    json list = json::array();
    for (size_t i = start; i < std::min(objects.size(), start + kLfsBatchChunk); ++i) {
      list.push_back({{"oid", objects[i].sha256}, {"size", objects[i].size}});
    }
    json payload = {{"operation", "upload"}, {"transfers", {"basic"}}, {"objects", list},
                    {"hash_algo", "sha256"}, {"ref", {{"name", revision}}}};
    std::string url = settings().endpoint + "/" + repo.web_prefix() + repo.id + ".git/info/lfs/objects/batch";
    auto response = http_.send_expecting_ok({"POST", url,
                                {{"Accept", "application/vnd.git-lfs+json"},
                                 {"Content-Type", "application/vnd.git-lfs+json"}},
                                payload.dump(), {}, {}}, "LFS batch");
    if (!response) return std::move(response).error();
    json body = json::parse(response->body, nullptr, false);
    if (body.is_discarded() || !body.contains("objects")) {
      return util::Error(util::ErrorKind::network, "Invalid LFS batch response from " + response->url);
    }
    for (const auto& o : body["objects"]) {
      std::string oid = o.value("oid", "");
      if (o.contains("error")) {
        return util::Error(util::ErrorKind::network,
                           "LFS upload of " + oid + " refused: " + o["error"].value("message", "unknown error"));
      }
      if (!o.contains("actions") || !o["actions"].contains("upload")) continue;  // already stored
      const LfsObject* object = nullptr;
      for (size_t i = start; i < std::min(objects.size(), start + kLfsBatchChunk); ++i) {
        if (objects[i].sha256 == oid) object = &objects[i];
      }
      if (!object) continue;
      Action action{object, o["actions"]["upload"].value("href", ""), {}, ""};
      for (const auto& [name, value] : o["actions"]["upload"].value("header", json::object()).items()) {
        if (value.is_string()) action.upload_headers.emplace_back(name, value.get<std::string>());
      }
      if (o["actions"].contains("verify")) action.verify_href = o["actions"]["verify"].value("href", "");
      actions.push_back(std::move(action));
    }
  }
  std::atomic<uint64_t> done{0};
  return run_parallel(actions.size(), parallelism, [&](size_t i) -> util::Status {
    const Action& action = actions[i];
    HttpRequest put{"PUT", action.upload_href, action.upload_headers, {}, action.object->local_path, {}};
    auto response = http_.send(put);
    if (!response) return std::move(response).error();
    if (response->status < 200 || response->status >= 300) return http_.http_error(*response, "LFS upload");
    if (!action.verify_href.empty()) {
      json verify = {{"oid", action.object->sha256}, {"size", action.object->size}};
      auto verified = http_.send_expecting_ok({"POST", action.verify_href, {{"Content-Type", "application/vnd.git-lfs+json"}},
                                  verify.dump(), {}, {}}, "LFS verify");
      if (!verified) return std::move(verified).error();
    }
    if (progress) progress(++done, actions.size());
    return {};
  });
}

util::Result<CommitResponse> HubClient::commit(const RepoRef& repo, const std::string& revision,
                                               const std::vector<CommitOperation>& operations,
                                               const std::string& summary, bool create_pr,
                                               const std::optional<std::string>& parent_commit) {
  json header = {{"summary", summary}, {"description", ""}};
  if (parent_commit) header["parentCommit"] = *parent_commit;
  std::string payload = json{{"key", "header"}, {"value", header}}.dump() + "\n";
  for (const auto& op : operations) {
    json line;
    switch (op.kind) {
      case CommitOperationKind::add_regular: {
        auto content = util::read_file(op.local_path);
        if (!content) return std::move(content).error();
        line = {{"key", "file"}, {"value", {{"path", op.path_in_repo}, {"content", util::base64_encode(*content)},
                                            {"encoding", "base64"}}}};
        break;
      }
      case CommitOperationKind::add_lfs:
        line = {{"key", "lfsFile"}, {"value", {{"path", op.path_in_repo}, {"algo", "sha256"}, {"oid", op.sha256},
                                               {"size", op.size}}}};
        break;
      case CommitOperationKind::delete_file:
        line = {{"key", "deletedFile"}, {"value", {{"path", op.path_in_repo}}}};
        break;
      case CommitOperationKind::delete_folder:
        line = {{"key", "deletedFolder"}, {"value", {{"path", op.path_in_repo}}}};
        break;
    }
    payload += line.dump() + "\n";
  }
  std::string url = api_url(repo, "/commit/" + encode_revision(revision)) + (create_pr ? "?create_pr=1" : "");
  auto response = http_.send_expecting_ok({"POST", url, {{"Content-Type", "application/x-ndjson"}}, payload, {}, {}}, "commit");
  if (!response) return std::move(response).error();
  json body = json::parse(response->body, nullptr, false);
  if (body.is_discarded()) return util::Error(util::ErrorKind::network, "Invalid commit response from " + response->url);
  CommitResponse result;
  result.commit = body.value("commitOid", "");
  if (body.contains("pullRequestUrl") && body["pullRequestUrl"].is_string()) {
    result.pull_request_url = body["pullRequestUrl"].get<std::string>();
    const std::string& url_text = *result.pull_request_url;
    auto slash = url_text.rfind('/');
    std::string digits = url_text.substr(slash + 1);
    if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos) {
      result.pull_request_number = std::stoi(digits);
    }
  }
  return result;
}

}  // namespace kb::hub::client
