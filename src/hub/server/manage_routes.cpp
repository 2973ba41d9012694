// Repository management endpoints (docs/hub-api.md): card metadata validation, repository
// deletion, branch deletion, tags and settings. Bodies are parsed by hub/protocol/requests.h
// (400 naming the field); every write needs membership of the repository's namespace.
#include "hub/protocol/card_metadata.h"
#include "hub/protocol/names.h"
#include "hub/protocol/requests.h"
#include "hub/server/server_core.h"
#include "hub/server/http_support.h"
#include "hub/server/service.h"

namespace kb::hub::server {

using nlohmann::json;

namespace {

json messages(const std::vector<std::string>& texts) {
  json out = json::array();
  for (const auto& text : texts) out.push_back({{"message", text}});
  return out;
}

}  // namespace

void HubService::validate_yaml(const Request& request, Response& response) {
  std::optional<storage::User> caller;
  if (!caller_of(request, response, caller)) return;
  auto body = protocol::parse_validate_yaml(request.body);
  if (!body) return reply_error(response, 400, "", body.error().message);
  auto report = protocol::validate_card_metadata(body->content);
  json out = {{"errors", messages(report.errors)}, {"warnings", messages(report.warnings)}};
  if (report.errors.empty()) return reply_json(response, 200, out);
  // huggingface_hub raises ValueError listing `errors` on 400.
  std::string summary = "Invalid metadata in README.md: " + report.errors.front();
  out["error"] = summary;
  response.set_header("X-Error-Message", summary);
  reply_json(response, 400, out);
}

void HubService::delete_repo(const Request& request, Response& response) {
  std::optional<storage::User> caller;
  if (!caller_of(request, response, caller)) return;
  if (!caller) return reply_error(response, 401, "", "You must be authenticated to delete a repository");
  auto body = protocol::parse_delete_repo(request.body);
  if (!body) return reply_error(response, 400, "", body.error().message);
  std::string name = body->name;
  std::string name_space = body->organization.value_or(caller->name);
  if (auto slash = name.find('/'); slash != std::string::npos) {
    name_space = name.substr(0, slash);
    name = name.substr(slash + 1);
  }
  storage::RepoId repo{body->type, name_space, name};
  // Reads as missing to whoever cannot read it; readers who are not members get 403.
  if (!authorize(request, response, repo, Access::write)) return;
  auto removed = store_.delete_repo(repo);
  if (!removed.ok()) return reply_error(response, removed.error());
  // Objects no repository owns any more left the store, and its records with it: nobody is
  // charged for them now.
  if (auto s = usage_.discharge(*removed); !s) return reply_error(response, 500, "", s.error().message);
  reply_json(response, 200, json::object());
}

void HubService::delete_branch(const Request& request, Response& response, const RepoRequest& target) {
  if (!authorize(request, response, target.repo, Access::write)) return;
  std::string branch = decoded_path(target.rest, 1);
  auto deleted = store_.delete_branch(target.repo, branch);
  if (!deleted.ok()) return reply_error(response, deleted.error());
  // Its entry of refs.json is gone: whoever created it is no longer charged for it.
  if (auto s = usage_.discharge(storage::RepoStore::ref_record_key(target.repo, false, branch)); !s) {
    return reply_error(response, 500, "", s.error().message);
  }
  reply_json(response, 200, json::object());
}

void HubService::create_tag(const Request& request, Response& response, const RepoRequest& target) {
  std::optional<storage::User> caller;
  if (!authorize(request, response, target.repo, Access::write, &caller)) return;
  std::string revision = decoded_path(target.rest, 1);
  if (auto valid = protocol::check_revision(revision); !valid) return reply_error(response, 400, "", valid.error().message);
  auto body = protocol::parse_create_tag(request.body);
  if (!body) return reply_error(response, 400, "", body.error().message);
  auto created = store_.create_tag(target.repo, body->tag, revision, charge_to(caller->name));
  if (!created.ok()) return reply_error(response, created.error());
  reply_json(response, 200, json::object());
}

void HubService::delete_tag(const Request& request, Response& response, const RepoRequest& target) {
  if (!authorize(request, response, target.repo, Access::write)) return;
  std::string tag = decoded_path(target.rest, 1);
  auto deleted = store_.delete_tag(target.repo, tag);
  if (!deleted.ok()) return reply_error(response, deleted.error());
  if (auto s = usage_.discharge(storage::RepoStore::ref_record_key(target.repo, true, tag)); !s) {
    return reply_error(response, 500, "", s.error().message);
  }
  reply_json(response, 200, json::object());
}

void HubService::update_settings(const Request& request, Response& response,
                                 const RepoRequest& target, const ContentReader& reader) {
  // A JSON body like any POST: read here under --max-request-body (PUT bodies reach handlers unread).
  std::string body;
  bool too_large = false;
  bool complete = reader([&](const char* data, size_t size) {
    if (body.size() + size > limits_.max_request_body) {
      too_large = true;
      return false;
    }
    body.append(data, size);
    return true;
  });
  if (too_large) {
    close_connection_after_response();  // the rest of the body is unread
    return reply_error(response, 413, "", "Request body is larger than the server's limit of " +
                                              std::to_string(limits_.max_request_body) + " bytes (--max-request-body)");
  }
  if (!complete) return reply_error(response, 400, "", "Could not read the request body");
  if (!authorize(request, response, target.repo, Access::write)) return;
  auto settings = protocol::parse_repo_settings(body);
  if (!settings) return reply_error(response, 400, "", settings.error().message);
  auto updated = store_.update_settings(target.repo, settings->is_private, settings->gated);
  if (!updated.ok()) return reply_error(response, updated.error());
  json gated = updated->gated.empty() ? json(false) : json(updated->gated);
  reply_json(response, 200, {{"private", updated->is_private}, {"gated", gated}});
}

}  // namespace kb::hub::server
