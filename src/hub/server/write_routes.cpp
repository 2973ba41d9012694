// Write endpoints: repo creation, branch creation, pre-upload, LFS batch (basic transfer with
// ticketed PUT and verify) and the ndjson commit. Bodies are parsed by hub/protocol/requests.h
// (400 naming the field); objects are scoped to repositories, sizes and quotas are enforced
// here (docs/hub-security.md).
#include <fstream>

#include "hub/protocol/names.h"
#include "hub/protocol/requests.h"
#include "hub/server/server_core.h"
#include "hub/server/http_support.h"
#include "hub/server/service.h"
#include "hub/storage/storage_errors.h"
#include "util/hash.h"
#include "util/strings.h"

namespace kb::hub::server {

using nlohmann::json;

namespace {

constexpr uint64_t kLfsThreshold = 10 * 1024 * 1024;


std::string bytes_text(uint64_t bytes) { return std::to_string(bytes) + " bytes"; }

// 400 for a request body that does not parse (the message names the field).
void reply_invalid(Response& response, const util::Error& error) {
  reply_error(response, 400, "", error.message);
}

}  // namespace

bool HubService::reachable_object(const std::optional<storage::User>& caller, const storage::RepoId& repo,
                                  const std::string& sha256) {
  if (store_.owns(repo, sha256)) return true;
  for (const auto& owner : store_.owners(sha256)) {
    if (can_read(caller, owner)) return true;
  }
  return false;
}

storage::ChargeRecord HubService::charge_to(const std::string& user) {
  return [this, user](const std::string& key, uint64_t bytes) -> util::Status {
    uint64_t size = bytes + kRecordBookkeeping;
    auto charged = usage_.charge_within(user, key, size, limits_.quota);
    if (!charged) return std::move(charged).error();
    if (!*charged) {
      return storage::quota_exceeded("Storing " + bytes_text(size) + " would exceed the storage quota of " +
                                     bytes_text(limits_.quota) + " of user `" + user + "` (" +
                                     bytes_text(usage_.used(user)) + " used)");
    }
    return {};
  };
}

void HubService::create_repo(const Request& request, Response& response) {
  std::optional<storage::User> caller;
  if (!caller_of(request, response, caller)) return;
  if (!caller) return reply_error(response, 401, "", "You must be authenticated to create a repository");
  auto body = protocol::parse_create_repo(request.body);
  if (!body) return reply_invalid(response, body.error());
  std::string name = body->name;
  std::string name_space = body->organization.value_or(caller->name);
  if (auto slash = name.find('/'); slash != std::string::npos) {
    name_space = name.substr(0, slash);
    name = name.substr(slash + 1);
  }
  if (body->type != "kernel" && body->type != "model") {
    return reply_error(response, 400, "", "type: unsupported repository type `" + body->type + "` (kernel or model)");
  }
  storage::RepoId repo{body->type, name_space, name};
  if (auto valid = protocol::check_repo_id(repo.full()); !valid) return reply_invalid(response, valid.error());
  std::string url = public_url_ + web_prefix(repo) + repo.full();
  if (!storage::Accounts::is_member(*caller, name_space)) {
    return reply_error(response, 403, "", "You don't have the rights to create a repository under `" + name_space + "`");
  }
  auto created = store_.create_repo(repo, body->is_private, charge_to(caller->name));
  if (!created.ok()) {
    if (created.error().status == 409) {  // exists: the Hub answers with its URL too
      response.set_header("X-Error-Message", created.error().message);
      return reply_json(response, 409, {{"error", created.error().message}, {"url", url}});
    }
    return reply_error(response, created.error());
  }
  reply_json(response, 200, {{"url", url}, {"name", repo.full()}, {"id", repo.full()}});
}

void HubService::create_branch(const Request& request, Response& response, const RepoRequest& target) {
  std::optional<storage::User> caller;
  if (!authorize(request, response, target.repo, Access::write, &caller)) return;
  std::string branch = decoded_path(target.rest, 1);
  if (auto valid = protocol::check_ref_name(branch); !valid) return reply_invalid(response, valid.error());
  auto body = protocol::parse_create_branch(request.body);
  if (!body) return reply_invalid(response, body.error());
  std::string start = body->starting_point.value_or("main");
  if (auto valid = protocol::check_revision(start); !valid) {
    return reply_error(response, 400, "", "startingPoint: " + valid.error().message);
  }
  auto created = store_.create_branch(target.repo, branch, start, charge_to(caller->name));
  if (!created.ok()) return reply_error(response, created.error());
  reply_json(response, 200, json::object());
}

void HubService::preupload(const Request& request, Response& response, const RepoRequest& target) {
  std::string revision = decoded_path(target.rest, 1);
  std::optional<storage::User> caller;
  if (!authorize_revision(request, response, target.repo, revision, bool_param(request, "create_pr"), caller)) return;
  if (auto valid = protocol::check_revision(revision); !valid) return reply_invalid(response, valid.error());
  auto files = protocol::parse_preupload(request.body);
  if (!files) return reply_invalid(response, files.error());
  std::shared_ptr<const storage::Commit> head;
  if (auto id = store_.resolve(target.repo, revision); id.ok()) {
    if (auto loaded = store_.load_commit(target.repo, *id); loaded.ok()) head = *loaded;
  } else {
    return reply_error(response, id.error());
  }
  json out = json::array();
  for (const auto& file : *files) {
    bool lfs = file.size >= kLfsThreshold || file.sample.find('\0') != std::string::npos;
    json entry = {{"path", file.path}, {"uploadMode", lfs ? "lfs" : "regular"}, {"shouldIgnore", false}};
    if (head) {
      if (auto it = head->tree.find(file.path); it != head->tree.end()) {
        entry["oid"] = it->second.lfs ? it->second.sha256 : it->second.oid;
      }
    }
    out.push_back(std::move(entry));
  }
  reply_json(response, 200, {{"files", out}});
}

void HubService::lfs_batch(const Request& request, Response& response, const RepoRequest& target) {
  // The ref decides, as for a commit: a batch without one is for a new pull request (what
  // huggingface_hub sends with create_pr), which any signed-in reader may open.
  auto ref = protocol::parse_lfs_batch_ref(request.body);
  if (!ref) return reply_invalid(response, ref.error());
  std::optional<storage::User> caller;
  if (!authorize_revision(request, response, target.repo, ref->value_or(""), !ref->has_value(), caller)) return;
  auto objects = protocol::parse_lfs_batch(request.body);
  if (!objects) return reply_invalid(response, objects.error());
  json out = json::array();
  std::string base = public_url_ + "/api/kernel-hub/lfs/";
  for (const auto& object : *objects) {
    json entry = {{"oid", object.oid}, {"size", object.size}};
    if (object.size > limits_.max_file_size) {
      entry["error"] = {{"code", 413},
                        {"message", "File of " + bytes_text(object.size) + " exceeds the maximum file size of " +
                                        bytes_text(limits_.max_file_size) + " of this Hub"}};
    } else if (reachable_object(caller, target.repo, object.oid) && store_.objects().contains(object.oid)) {
      // Already present for this repository (or readable by the caller): nothing to upload.
    } else if (!usage_.has(caller->name, object.oid) && limits_.quota != 0 &&
               usage_.used(caller->name) + object.size + kRecordBookkeeping > limits_.quota) {
      entry["error"] = {{"code", 413},
                        {"message", "Uploading " + bytes_text(object.size) + " would exceed the storage quota of " +
                                        bytes_text(limits_.quota) + " of user `" + caller->name + "` (" +
                                        bytes_text(usage_.used(caller->name)) + " used)"}};
    } else {
      UploadTicket issued{object.oid, object.size, target.repo, caller->name};
      issued.member = storage::Accounts::is_member(*caller, target.repo.name_space);
      std::string ticket = issue_ticket(std::move(issued));
      entry["authenticated"] = true;
      entry["actions"] = {{"upload", {{"href", base + ticket}, {"header", json::object()}}},
                          {"verify", {{"href", base + ticket + "/verify"}, {"header", json::object()}}}};
    }
    out.push_back(std::move(entry));
  }
  response.status = 200;
  response.set_content(json{{"transfer", "basic"}, {"objects", out}, {"hash_algo", "sha256"}}.dump(),
                       "application/vnd.git-lfs+json");
}

void HubService::lfs_upload(const std::string& ticket_id, const Request& request, Response& response,
                            const ContentReader& reader) {
  // Every refusal here leaves the body unread: the connection is closed after the answer, so
  // the body is never parsed as a request.
  auto refuse = [&response](int status, const std::string& message) {
    close_connection_after_response();
    reply_error(response, status, "", message);
  };
  auto ticket = claim_ticket(ticket_id);
  if (!ticket) return refuse(403, "Unknown, expired or already used upload URL");
  // Checked against the accounts as they are now (docs/hub-security.md, "Authorization"): a user
  // removed, or taken out of the organization a member's ticket was issued for, uploads nothing.
  auto uploader = accounts_.user(ticket->user);
  if (!uploader || !can_read(uploader, ticket->repo) ||
      (ticket->member && !storage::Accounts::is_member(*uploader, ticket->repo.name_space))) {
    release_ticket(ticket_id);
    return refuse(403, "Upload URL of a user who may no longer write to `" + ticket->repo.full() + "`");
  }
  const std::string length_header = request.get_header_value("Content-Length");
  if (!length_header.empty()) {
    char* end = nullptr;
    uint64_t length = std::strtoull(length_header.c_str(), &end, 10);
    if (end == length_header.c_str() || *end != '\0' || length != ticket->size) {
      release_ticket(ticket_id);
      return refuse(length > ticket->size ? 413 : 400,
                    "Upload body of " + length_header + " bytes, expected exactly " + bytes_text(ticket->size));
    }
  }
  bool charged_before = usage_.has(ticket->user, ticket->sha256);
  // An object costs its bytes and its bookkeeping (owned-set and ledger lines), like a record.
  const uint64_t cost = ticket->size + kRecordBookkeeping;
  if (!charged_before && !usage_.reserve(ticket->user, cost, limits_.quota)) {
    release_ticket(ticket_id);
    return refuse(413, "Uploading " + bytes_text(ticket->size) + " would exceed the storage quota of " +
                           bytes_text(limits_.quota) + " of user `" + ticket->user + "`");
  }
  auto unreserve = [&] {
    if (!charged_before) usage_.release(ticket->user, cost);
  };
  auto temp = store_.objects().new_temp_path();
  bool written = false;
  uint64_t received = 0;
  {
    std::ofstream out(temp, std::ios::binary);
    written = reader([&](const char* data, size_t size) {
      received += size;
      if (received > ticket->size) return false;  // more than declared: stop reading at once
      out.write(data, static_cast<std::streamsize>(size));
      return static_cast<bool>(out);
    });
    written = written && static_cast<bool>(out);
  }
  std::error_code ec;
  if (!written || received != ticket->size) {
    std::filesystem::remove(temp, ec);
    unreserve();
    release_ticket(ticket_id);
    return refuse(received > ticket->size ? 413 : 400,
                  "Upload incomplete or of the wrong size: expected exactly " + bytes_text(ticket->size));
  }
  // Stored and owned under the object guard, so a repository deletion cannot remove it in between.
  auto object_guard = store_.object_guard();
  auto stored = store_.objects().put_file(temp, ticket->sha256);
  if (!stored) {
    unreserve();
    release_ticket(ticket_id);
    return reply_error(response, 400, "", stored.error().message);
  }
  auto owned = store_.add_owned(ticket->repo, {stored->sha256});
  object_guard.unlock();
  auto charged = usage_.charge(ticket->user, stored->sha256, stored->size + kRecordBookkeeping);
  unreserve();
  if (!owned) return reply_error(response, 500, "", owned.error().message);
  if (!charged) return reply_error(response, 500, "", charged.error().message);
  finish_ticket(ticket_id);
  reply_json(response, 200, json::object());
}

void HubService::lfs_verify(const std::string& ticket_id, const Request&, Response& response) {
  auto ticket = find_ticket(ticket_id);
  if (!ticket) return reply_error(response, 403, "", "Unknown or expired verify URL");
  if (!ticket->uploaded || !store_.owns(ticket->repo, ticket->sha256) || !store_.objects().contains(ticket->sha256)) {
    return reply_error(response, 404, "", "Object not uploaded");
  }
  reply_json(response, 200, json::object());
}

void HubService::commit(const Request& request, Response& response, const RepoRequest& target) {
  storage::CommitRequest commit_request;
  commit_request.revision = decoded_path(target.rest, 1);
  commit_request.create_pr = bool_param(request, "create_pr");
  std::optional<storage::User> caller;
  if (!authorize_revision(request, response, target.repo, commit_request.revision, commit_request.create_pr, caller)) {
    return;
  }
  if (auto valid = protocol::check_revision(commit_request.revision); !valid) {
    return reply_invalid(response, valid.error());
  }
  commit_request.author = caller->name;
  // A pull request is a discussion: it counts towards the same hourly limit.
  if (commit_request.create_pr && !discussion_posts_.admit(caller->name)) {
    return reply_error(response, 429, "", "User `" + caller->name + "` opened " +
                                              std::to_string(limits_.max_discussions_per_hour) +
                                              " discussions in the last hour, the most this Hub allows; try again later");
  }
  auto payload = protocol::parse_commit_payload(request.body);
  if (!payload) return reply_invalid(response, payload.error());
  if (payload->operations.size() > limits_.max_files_per_commit) {
    return reply_error(response, 413, "", "Commit has " + std::to_string(payload->operations.size()) +
                                              " operations; this Hub accepts at most " +
                                              std::to_string(limits_.max_files_per_commit) + " per commit");
  }
  commit_request.parent_commit = payload->parent_commit;
  // Inline content is charged like an upload: distinct new bytes of this user, within the quota.
  uint64_t inline_bytes = 0;
  for (const auto& op : payload->operations) {
    if (op.kind != protocol::CommitOpKind::file) continue;
    if (op.content.size() > limits_.max_file_size) {
      return reply_error(response, 413, "", "File `" + op.path + "` of " + bytes_text(op.content.size()) +
                                                " exceeds the maximum file size of " + bytes_text(limits_.max_file_size));
    }
    if (!usage_.has(caller->name, util::sha256_hex(op.content))) inline_bytes += op.content.size() + kRecordBookkeeping;
  }
  if (inline_bytes > 0 && !usage_.reserve(caller->name, inline_bytes, limits_.quota)) {
    return reply_error(response, 413, "", "Committing " + bytes_text(inline_bytes) +
                                              " would exceed the storage quota of " + bytes_text(limits_.quota) +
                                              " of user `" + caller->name + "`");
  }
  struct Unreserve {
    storage::UsageLedger& usage;
    std::string user;
    uint64_t bytes;
    ~Unreserve() { usage.release(user, bytes); }
  } unreserve{usage_, caller->name, inline_bytes};
  std::vector<std::pair<std::string, uint64_t>> charges;
  for (auto& op : payload->operations) {
    storage::Operation store_op;
    store_op.path = op.path;
    switch (op.kind) {
      case protocol::CommitOpKind::file: {
        auto stored = store_.objects().put_bytes(op.content);
        if (!stored) return reply_error(response, 500, "", stored.error().message);
        store_op.entry = storage::TreeEntry{stored->git_oid, stored->sha256, stored->size, false};
        charges.emplace_back(stored->sha256, stored->size);
        break;
      }
      case protocol::CommitOpKind::lfs_file: {
        // The same answer whether the object exists elsewhere or nowhere: nothing leaks.
        // The body came through LFS (object store) or Xet (a verified shard recorded its SHA-256).
        auto stored_size = stored_content_size(op.oid);
        if (!stored_size || !reachable_object(caller, target.repo, op.oid)) {
          return reply_error(response, 422, "", "LFS object `" + op.oid + "` of `" + op.path +
                                                    "` was not uploaded to `" + target.repo.full() + "`");
        }
        if (*stored_size != op.size) {
          return reply_error(response, 422, "", "Declared size " + std::to_string(op.size) + " of `" + op.path +
                                                    "` differs from the uploaded object's size " +
                                                    std::to_string(*stored_size));
        }
        store_op.entry = storage::TreeEntry{util::git_blob_sha1(storage::lfs_pointer(op.oid, op.size)), op.oid,
                                            op.size, true};
        break;
      }
      case protocol::CommitOpKind::delete_file:
        store_op.kind = storage::OperationKind::delete_file;
        break;
      case protocol::CommitOpKind::delete_folder:
        store_op.kind = storage::OperationKind::delete_folder;
        break;
    }
    commit_request.operations.push_back(std::move(store_op));
  }
  commit_request.message =
      payload->description.empty() ? payload->summary : payload->summary + "\n\n" + payload->description;
  commit_request.charge = charge_to(caller->name);
  auto result = store_.commit(target.repo, commit_request);
  if (!result.ok()) return reply_error(response, result.error());
  for (const auto& [sha256, size] : charges) {
    if (auto charged = usage_.charge(caller->name, sha256, size + kRecordBookkeeping); !charged) {
      return reply_error(response, 500, "", charged.error().message);
    }
  }
  std::string repo_url = public_url_ + web_prefix(target.repo) + target.repo.full();
  json pr_url = nullptr;
  if (result->pull_request) pr_url = repo_url + "/discussions/" + std::to_string(*result->pull_request);
  reply_json(response, 200, {{"success", true}, {"commitOid", result->commit},
                             {"commitUrl", repo_url + "/commit/" + result->commit},
                             {"pullRequestUrl", pr_url}});
}

}  // namespace kb::hub::server
