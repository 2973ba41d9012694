// Write endpoints: repo creation, branch creation, pre-upload, LFS batch (basic transfer with
// ticketed PUT and verify) and the ndjson commit.
#include <fstream>

#include "hub/server/http_support.h"
#include "hub/server/service.h"
#include "util/hash.h"
#include "util/strings.h"

namespace kb::hub::server {

using nlohmann::json;

namespace {

constexpr uint64_t kLfsThreshold = 10 * 1024 * 1024;

json parse_body(const httplib::Request& request) {
  json body = json::parse(request.body, nullptr, false);
  return body.is_discarded() ? json() : body;
}

// A path inside a repository: relative, '/'-separated, no empty, '.' or '..' component.
bool valid_repo_path(const std::string& path) {
  if (path.empty() || path.size() > 4096) return false;
  for (const auto& part : util::split(path, '/')) {
    if (part.empty() || part == "." || part == "..") return false;
  }
  return path.find('\0') == std::string::npos;
}

std::string web_prefix(const storage::RepoId& repo) { return repo.type == "kernel" ? "/kernels/" : "/"; }

}  // namespace

void HubService::create_repo(const httplib::Request& request, httplib::Response& response) {
  std::optional<storage::User> caller;
  if (!caller_of(request, response, caller)) return;
  if (!caller) return reply_error(response, 401, "", "You must be authenticated to create a repository");
  json body = parse_body(request);
  if (!body.is_object() || !body.contains("name") || !body["name"].is_string()) {
    return reply_error(response, 400, "", "Missing repository name");
  }
  std::string name = body["name"];
  std::string name_space = caller->name;
  if (body.contains("organization") && body["organization"].is_string()) name_space = body["organization"];
  if (auto slash = name.find('/'); slash != std::string::npos) {
    name_space = name.substr(0, slash);
    name = name.substr(slash + 1);
  }
  std::string type = body.contains("type") && body["type"].is_string() ? body["type"].get<std::string>() : "model";
  if (type != "kernel" && type != "model") {
    return reply_error(response, 400, "", "Unsupported repository type `" + type + "`");
  }
  bool is_private = body.value("private", false) || body.value("visibility", "") == "private";
  storage::RepoId repo{type, name_space, name};
  std::string url = public_url_ + web_prefix(repo) + repo.full();
  if (!storage::Accounts::is_member(*caller, name_space)) {
    return reply_error(response, 403, "", "You don't have the rights to create a repository under `" + name_space + "`");
  }
  auto created = store_.create_repo(repo, is_private);
  if (!created.ok()) {
    if (created.problem.failure == storage::Failure::conflict) {
      response.set_header("X-Error-Message", created.problem.message);
      return reply_json(response, 409, {{"error", created.problem.message}, {"url", url}});
    }
    return reply_problem(response, created.problem);
  }
  reply_json(response, 200, {{"url", url}, {"name", repo.full()}, {"id", repo.full()}});
}

void HubService::create_branch(const httplib::Request& request, httplib::Response& response, const RepoRequest& target) {
  if (!authorize(request, response, target.repo, Access::write)) return;
  std::string branch = decoded_path(target.rest, 1);
  json body = parse_body(request);
  std::string start = "main";
  if (body.is_object() && body.contains("startingPoint") && body["startingPoint"].is_string()) start = body["startingPoint"];
  auto created = store_.create_branch(target.repo, branch, start);
  if (!created.ok()) return reply_problem(response, created.problem);
  reply_json(response, 200, json::object());
}

void HubService::preupload(const httplib::Request& request, httplib::Response& response, const RepoRequest& target) {
  if (!authorize(request, response, target.repo, Access::write)) return;
  std::string revision = decoded_path(target.rest, 1);
  json body = parse_body(request);
  if (!body.is_object() || !body.contains("files") || !body["files"].is_array()) {
    return reply_error(response, 400, "", "Expected {\"files\": [...]}");
  }
  std::shared_ptr<const storage::Commit> head;
  if (auto id = store_.resolve(target.repo, revision); id.ok()) {
    if (auto loaded = store_.load_commit(target.repo, *id.value); loaded.ok()) head = *loaded.value;
  } else {
    return reply_problem(response, id.problem);
  }
  json files = json::array();
  for (const auto& file : body["files"]) {
    std::string path = file.value("path", "");
    uint64_t size = file.value("size", uint64_t{0});
    auto sample = util::base64_decode(file.value("sample", ""));
    bool binary = sample && sample->find('\0') != std::string::npos;
    bool lfs = size >= kLfsThreshold || binary;
    json entry = {{"path", path}, {"uploadMode", lfs ? "lfs" : "regular"}, {"shouldIgnore", false}};
    if (head) {
      if (auto it = head->tree.find(path); it != head->tree.end()) {
        entry["oid"] = it->second.lfs ? it->second.sha256 : it->second.oid;
      }
    }
    files.push_back(std::move(entry));
  }
  reply_json(response, 200, {{"files", files}});
}

void HubService::lfs_batch(const httplib::Request& request, httplib::Response& response, const RepoRequest& target) {
  if (!authorize(request, response, target.repo, Access::write)) return;
  json body = parse_body(request);
  if (!body.is_object() || body.value("operation", "") != "upload" || !body.contains("objects")) {
    return reply_error(response, 400, "", "Only the `upload` operation is supported");
  }
  json objects = json::array();
  std::string base = public_url_ + "/api/kernel-hub/lfs/";
  for (const auto& object : body["objects"]) {
    std::string oid = object.value("oid", "");
    uint64_t size = object.value("size", uint64_t{0});
    json entry = {{"oid", oid}, {"size", size}};
    bool hex = oid.size() == 64 && oid.find_first_not_of("0123456789abcdef") == std::string::npos;
    if (!hex) {
      entry["error"] = {{"code", 422}, {"message", "Invalid oid"}};
    } else if (!store_.objects().contains(oid)) {
      std::string ticket = issue_ticket(oid, size);
      entry["authenticated"] = true;
      entry["actions"] = {{"upload", {{"href", base + ticket}, {"header", json::object()}}},
                          {"verify", {{"href", base + ticket + "/verify"}, {"header", json::object()}}}};
    }
    objects.push_back(std::move(entry));
  }
  response.status = 200;
  response.set_content(json{{"transfer", "basic"}, {"objects", objects}, {"hash_algo", "sha256"}}.dump(),
                       "application/vnd.git-lfs+json");
}

void HubService::lfs_upload(const std::string& ticket, httplib::Response& response, const httplib::ContentReader& reader) {
  auto found = find_ticket(ticket);
  if (!found) return reply_error(response, 403, "", "Unknown or expired upload URL");
  auto temp = store_.objects().new_temp_path();
  bool written = false;
  {
    std::ofstream out(temp, std::ios::binary);
    written = reader([&out](const char* data, size_t size) {
      out.write(data, static_cast<std::streamsize>(size));
      return static_cast<bool>(out);
    });
    written = written && static_cast<bool>(out);
  }
  std::error_code ec;
  if (!written || std::filesystem::file_size(temp, ec) != found->size) {
    std::filesystem::remove(temp, ec);
    return reply_error(response, 400, "", "Upload incomplete or of the wrong size");
  }
  auto stored = store_.objects().put_file(temp, found->sha256);
  if (!stored) return reply_error(response, 400, "", stored.error().message);
  reply_json(response, 200, json::object());
}

void HubService::lfs_verify(const std::string& ticket, const httplib::Request&, httplib::Response& response) {
  auto found = find_ticket(ticket);
  if (!found) return reply_error(response, 403, "", "Unknown or expired verify URL");
  if (!store_.objects().contains(found->sha256)) return reply_error(response, 404, "", "Object not uploaded");
  reply_json(response, 200, json::object());
}

void HubService::commit(const httplib::Request& request, httplib::Response& response, const RepoRequest& target) {
  if (!authorize(request, response, target.repo, Access::write)) return;
  storage::CommitRequest commit_request;
  commit_request.revision = decoded_path(target.rest, 1);
  commit_request.create_pr = bool_param(request, "create_pr");
  std::string summary = "Upload files";
  std::string description;
  for (const auto& line : util::split(request.body, '\n')) {
    if (util::trim(line).empty()) continue;
    json item = json::parse(line, nullptr, false);
    if (item.is_discarded() || !item.is_object() || !item.contains("value") || !item["value"].is_object()) {
      return reply_error(response, 400, "", "Malformed ndjson line in commit payload");
    }
    std::string key = item.value("key", "");
    const json& value = item["value"];
    if (key == "header") {
      summary = value.value("summary", summary);
      description = value.value("description", "");
      if (value.contains("parentCommit") && value["parentCommit"].is_string()) {
        commit_request.parent_commit = value["parentCommit"].get<std::string>();
      }
      continue;
    }
    storage::Operation op;
    op.path = value.value("path", "");
    if (!valid_repo_path(key == "deletedFolder" && !op.path.empty() && op.path.back() == '/'
                             ? op.path.substr(0, op.path.size() - 1) : op.path)) {
      return reply_error(response, 400, "", "Invalid path `" + op.path + "`");
    }
    if (key == "file") {
      auto content = value.value("encoding", "base64") == "base64"
                         ? util::base64_decode(value.value("content", ""))
                         : util::Result<std::string>(value.value("content", ""));
      if (!content) return reply_error(response, 400, "", "Invalid base64 content for `" + op.path + "`");
      auto stored = store_.objects().put_bytes(*content);
      if (!stored) return reply_error(response, 500, "", stored.error().message);
      op.entry = storage::TreeEntry{stored->git_oid, stored->sha256, stored->size, false};
    } else if (key == "lfsFile") {
      std::string oid = value.value("oid", "");
      uint64_t size = value.value("size", uint64_t{0});
      if (!store_.objects().contains(oid)) {
        return reply_error(response, 422, "", "LFS object " + oid + " of `" + op.path + "` was not uploaded");
      }
      op.entry = storage::TreeEntry{util::git_blob_sha1(storage::lfs_pointer(oid, size)), oid, size, true};
    } else if (key == "deletedFile") {
      op.kind = storage::OperationKind::delete_file;
    } else if (key == "deletedFolder") {
      op.kind = storage::OperationKind::delete_folder;
    } else {
      return reply_error(response, 400, "", "Unknown commit operation `" + key + "`");
    }
    commit_request.operations.push_back(std::move(op));
  }
  commit_request.message = description.empty() ? summary : summary + "\n\n" + description;
  auto result = store_.commit(target.repo, commit_request);
  if (!result.ok()) return reply_problem(response, result.problem);
  std::string repo_url = public_url_ + web_prefix(target.repo) + target.repo.full();
  json pr_url = nullptr;
  if (result.value->pull_request) pr_url = repo_url + "/discussions/" + std::to_string(*result.value->pull_request);
  reply_json(response, 200, {{"success", true}, {"commitOid", result.value->commit},
                             {"commitUrl", repo_url + "/commit/" + result.value->commit},
                             {"pullRequestUrl", pr_url}});
}

}  // namespace kb::hub::server
