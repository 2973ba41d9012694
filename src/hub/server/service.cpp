// Routing and access control of the Hub service.
#include "hub/server/service.h"

#include <nlohmann/json.hpp>
#include <random>
#include <utility>

#include "hub/protocol/error_codes.h"
#include "hub/server/http_support.h"
#include "hub/storage/directory_records.h"
#include "util/hash.h"

namespace kb::hub::server {

namespace {

// "kernels" -> "kernel", "models" -> "model"; empty for anything else.
std::string repo_type_of(const std::string& segment) {
  if (segment == "kernels") return "kernel";
  if (segment == "models") return "model";
  return "";
}

RepoRequest repo_request(const std::string& type, const std::vector<std::string>& segments, size_t ns_index) {
  RepoRequest target;
  target.repo = storage::RepoId{type, percent_decode(segments[ns_index]), percent_decode(segments[ns_index + 1])};
  target.rest.assign(segments.begin() + static_cast<long>(ns_index) + 2, segments.end());
  return target;
}

bool ends_with_git(const std::string& name) {
  return name.size() > 4 && name.compare(name.size() - 4, 4, ".git") == 0;
}

}  // namespace

std::string decoded_path(const std::vector<std::string>& segments, size_t first) {
  std::string out;
  for (size_t i = first; i < segments.size(); ++i) {
    if (!out.empty()) out += '/';
    out += percent_decode(segments[i]);
  }
  return out;
}

std::pair<std::string, size_t> split_revision(const std::vector<std::string>& segments, size_t first) {
  if (first >= segments.size()) return {"", first};
  std::string head = percent_decode(segments[first]);
  if (head == "refs" && first + 2 < segments.size()) {
    std::string kind = percent_decode(segments[first + 1]);
    if (kind == "pr" || kind == "heads") {
      return {"refs/" + kind + "/" + percent_decode(segments[first + 2]), first + 3};
    }
  }
  return {head, first + 1};
}

HubService::HubService(std::filesystem::path root, HubLimits limits, storage::RecordStore* records,
                       std::shared_ptr<storage::BlobStore> blobs)
    : limits_(limits),
      owned_records_(records ? nullptr : std::make_unique<storage::DirectoryRecords>(root)),
      records_(records ? *records : *owned_records_),
      store_(records_, root, std::move(blobs)),
      accounts_(records_),
      usage_(records_),
      benchmarks_(records_) {}

bool HubService::caller_of(const Request& request, Response& response,
                           std::optional<storage::User>& caller) {
  std::string token = bearer_token(request);
  if (token.empty()) return true;
  caller = accounts_.user_for_token(token);
  if (!caller) {
    reply_error(response, 401, "", "Invalid credentials in Authorization header");
    return false;
  }
  return true;
}

bool HubService::can_read(const std::optional<storage::User>& caller, const storage::RepoId& repo) {
  auto info = store_.repo_info(repo);
  if (!info.ok()) return false;
  return !info->is_private || (caller && storage::Accounts::is_member(*caller, repo.name_space));
}

bool HubService::authorize(const Request& request, Response& response,
                           const storage::RepoId& repo, Access access, std::optional<storage::User>* caller_out) {
  std::optional<storage::User> caller;
  if (!caller_of(request, response, caller)) return false;
  bool member = caller && storage::Accounts::is_member(*caller, repo.name_space);
  // Private repos are indistinguishable from missing ones to outsiders.
  if (!can_read(caller, repo)) {
    reply_error(response, caller ? 404 : 401, protocol::error_code::kRepoNotFound, "Repository not found");
    return false;
  }
  if (access == Access::download && !member) {
    auto info = store_.repo_info(repo);
    if (info.ok() && !info->gated.empty()) {
      reply_error(response, caller ? 403 : 401, protocol::error_code::kGatedRepo,
                  "Access to `" + repo.full() + "` is restricted to members of `" + repo.name_space + "` (gated repository)");
      return false;
    }
  }
  if (access == Access::write && !caller) {
    reply_error(response, 401, "", "Authentication required to write to `" + repo.full() + "`");
    return false;
  }
  if (access == Access::write && !member) {
    reply_error(response, 403, "", "You don't have the rights to write to `" + repo.full() + "`");
    return false;
  }
  if (caller_out) *caller_out = caller;
  return true;
}

void HubService::handle_get(const Request& request, Response& response) {
  auto segments = raw_segments(request.target);
  size_t n = segments.size();
  if (n >= 2 && segments[0] == "api") {
    if (n == 2 && segments[1] == "whoami-v2") return whoami(request, response);
    if (n == 3 && segments[1] == "kernel-hub" && segments[2] == "capabilities") return capabilities(response);
    if (n >= 3 && segments[1] == "kernel-hub" && segments[2] == "xet") {
      return xet_cas_get(request, response, {segments.begin() + 3, segments.end()});
    }
    if (n == 4 && segments[1] == "organizations" && segments[3] == "overview") {
      return organization_overview(percent_decode(segments[2]), response);
    }
    std::string type = repo_type_of(segments[1]);
    if (!type.empty() && n >= 4) {
      RepoRequest target = repo_request(type, segments, 2);
      if (target.rest.empty()) return revision_info(request, response, target, "main");
      const std::string& verb = target.rest[0];
      if (verb == "refs" && target.rest.size() == 1) return refs(request, response, target);
      if (verb == "revision" && target.rest.size() >= 2) {
        return revision_info(request, response, target, decoded_path(target.rest, 1));
      }
      if (verb == "xet-read-token") return xet_token(request, response, target, XetScope::read);
      if (verb == "xet-write-token") return xet_token(request, response, target, XetScope::write);
      if (verb == "tree" && target.rest.size() >= 2) return tree(request, response, target);
      if (verb == "commits" && target.rest.size() >= 2) return commits(request, response, target);
      if (verb == "discussions" && target.rest.size() == 1) return list_discussions(request, response, target);
      if (verb == "discussions" && target.rest.size() == 2) return discussion_details(request, response, target);
      if (verb == "bulk" && target.rest.size() >= 2) return bulk(request, response, target);
      if (verb == "benchmarks") return benchmarks(request, response, target);
    }
  }
  // File downloads: /kernels/{ns}/{name}/resolve/... and /{ns}/{name}/resolve/... (models).
  if (n >= 5 && segments[0] == "kernels" && segments[3] == "resolve") {
    return resolve(request, response, repo_request("kernel", segments, 1));
  }
  if (n >= 4 && segments[2] == "resolve") return resolve(request, response, repo_request("model", segments, 0));
  if (page(request, response, segments)) return;
  reply_error(response, 404, "", "Not found");
}

void HubService::handle_post(const Request& request, Response& response) {
  auto segments = raw_segments(request.target);
  size_t n = segments.size();
  if (n == 3 && segments[0] == "api" && segments[1] == "repos" && segments[2] == "create") {
    return create_repo(request, response);
  }
  if (n == 2 && segments[0] == "api" && segments[1] == "validate-yaml") return validate_yaml(request, response);
  if (n >= 3 && segments[0] == "api" && segments[1] == "kernel-hub" && segments[2] == "xet") {
    return xet_cas_post(request, response, {segments.begin() + 3, segments.end()});
  }
  if (n == 5 && segments[0] == "api" && segments[1] == "kernel-hub" && segments[2] == "lfs" && segments[4] == "verify") {
    return lfs_verify(segments[3], request, response);
  }
  if (n >= 5 && segments[0] == "api") {
    std::string type = repo_type_of(segments[1]);
    if (!type.empty()) {
      RepoRequest target = repo_request(type, segments, 2);
      const std::string& verb = target.rest.empty() ? "" : target.rest[0];
      if (target.rest.size() >= 2) {
        if (verb == "branch") return create_branch(request, response, target);
        if (verb == "preupload") return preupload(request, response, target);
        if (verb == "commit") return commit(request, response, target);
        if (verb == "tag") return create_tag(request, response, target);
        if (verb == "paths-info") return paths_info(request, response, target);
      }
      if (verb == "discussions" && target.rest.size() == 1) return create_discussion(request, response, target);
      if (verb == "benchmarks") return benchmarks(request, response, target);
    }
  }
  // LFS batch: /{prefix}{ns}/{name}.git/info/lfs/objects/batch
  if (n >= 6 && segments[n - 1] == "batch" && segments[n - 2] == "objects" && segments[n - 3] == "lfs" &&
      segments[n - 4] == "info") {
    bool kernel = n == 7 && segments[0] == "kernels";
    if (kernel || n == 6) {
      RepoRequest target = repo_request(kernel ? "kernel" : "model", segments, kernel ? 1 : 0);
      if (ends_with_git(target.repo.name)) {
        target.repo.name.resize(target.repo.name.size() - 4);
        return lfs_batch(request, response, target);
      }
    }
  }
  reply_error(response, 404, "", "Not found");
}

void HubService::handle_put(const Request& request, Response& response,
                            const ContentReader& reader) {
  auto segments = raw_segments(request.target);
  if (segments.size() == 4 && segments[0] == "api" && segments[1] == "kernel-hub" && segments[2] == "lfs") {
    return lfs_upload(segments[3], request, response, reader);
  }
  if (segments.size() == 5 && segments[0] == "api" && segments[4] == "settings" && !repo_type_of(segments[1]).empty()) {
    return update_settings(request, response, repo_request(repo_type_of(segments[1]), segments, 2), reader);
  }
  reply_error(response, 404, "", "Not found");
}

bool HubService::refuse_put_before_body(const Request& request, Response& response) {
  auto segments = raw_segments(request.target);
  if (segments.size() == 4 && segments[0] == "api" && segments[1] == "kernel-hub" && segments[2] == "lfs") {
    auto ticket = find_ticket(segments[3]);
    if (!ticket || ticket->uploaded || ticket->in_use) {
      reply_error(response, 403, "", "Unknown, expired or already used upload URL");
      return true;
    }
    std::string length = request.get_header_value("Content-Length");
    if (!length.empty() && length != std::to_string(ticket->size)) {
      bool larger = length.size() > std::to_string(ticket->size).size() ||
                    (length.size() == std::to_string(ticket->size).size() && length > std::to_string(ticket->size));
      reply_error(response, larger ? 413 : 400, "",
                  "Upload body of " + length + " bytes, expected exactly " + std::to_string(ticket->size) + " bytes");
      return true;
    }
    return false;
  }
  if (segments.size() == 5 && segments[0] == "api" && segments[4] == "settings" && !repo_type_of(segments[1]).empty()) {
    return false;
  }
  reply_error(response, 404, "", "Not found");
  return true;
}

void HubService::handle_delete(const Request& request, Response& response) {
  auto segments = raw_segments(request.target);
  size_t n = segments.size();
  if (n == 3 && segments[0] == "api" && segments[1] == "repos" && segments[2] == "delete") {
    return delete_repo(request, response);
  }
  if (n >= 6 && segments[0] == "api" && !repo_type_of(segments[1]).empty()) {
    RepoRequest target = repo_request(repo_type_of(segments[1]), segments, 2);
    if (target.rest[0] == "branch") return delete_branch(request, response, target);
    if (target.rest[0] == "tag") return delete_tag(request, response, target);
    if (target.rest[0] == "benchmarks") return benchmarks(request, response, target);
  }
  reply_error(response, 404, "", "Not found");
}

namespace {

// Over a shared record store (replicas behind a load balancer) a ticket is a record, so the replica
// that receives the PUT or the verify need not be the one whose lfs_batch issued it. Its expiry is
// then wall-clock time (replicas share no steady clock).
std::string ticket_record(const std::string& id) { return "upload-tickets/" + id + ".json"; }

}  // namespace

std::string HubService::ticket_text(const UploadTicket& ticket, int64_t expires) {
  nlohmann::json doc = {{"format", 1},
                        {"sha256", ticket.sha256},
                        {"size", ticket.size},
                        {"type", ticket.repo.type},
                        {"namespace", ticket.repo.name_space},
                        {"name", ticket.repo.name},
                        {"user", ticket.user},
                        {"expires", expires},
                        {"in_use", ticket.in_use},
                        {"uploaded", ticket.uploaded},
                        {"member", ticket.member}};
  return doc.dump();
}

std::optional<std::pair<HubService::UploadTicket, int64_t>> HubService::parse_ticket(const std::string& text) {
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_object() || doc.value("format", 0) != 1) return std::nullopt;
  UploadTicket ticket;
  try {
    ticket.sha256 = doc.at("sha256").get<std::string>();
    ticket.size = doc.at("size").get<uint64_t>();
    ticket.repo = storage::RepoId{doc.at("type").get<std::string>(), doc.at("namespace").get<std::string>(),
                                  doc.at("name").get<std::string>()};
    ticket.user = doc.at("user").get<std::string>();
    ticket.in_use = doc.at("in_use").get<bool>();
    ticket.uploaded = doc.at("uploaded").get<bool>();
    ticket.member = doc.at("member").get<bool>();
    return std::make_pair(std::move(ticket), doc.at("expires").get<int64_t>());
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

std::optional<std::pair<HubService::UploadTicket, int64_t>> HubService::read_shared_ticket(const std::string& id) {
  if (id.size() != 64 || id.find_first_not_of("0123456789abcdef") != std::string::npos) return std::nullopt;
  auto text = records_.read(ticket_record(id));
  if (!text || !*text) return std::nullopt;
  auto parsed = parse_ticket(**text);
  if (!parsed || parsed->second < unix_now()) return std::nullopt;
  return parsed;
}

// Changes a shared ticket under its lock: `change` says whether to write it back.
std::optional<HubService::UploadTicket> HubService::update_shared_ticket(
    const std::string& id, const std::function<bool(UploadTicket&)>& change) {
  auto lock = records_.lock(ticket_record(id));
  if (!lock) return std::nullopt;
  auto parsed = read_shared_ticket(id);
  if (!parsed || !change(parsed->first)) return std::nullopt;
  if (!records_.write(ticket_record(id), ticket_text(parsed->first, parsed->second))) return std::nullopt;
  if (!(*lock)->release()) return std::nullopt;
  return parsed->first;
}

std::string HubService::issue_ticket(UploadTicket ticket) {
  std::random_device device;
  std::string raw;
  for (int i = 0; i < 8; ++i) raw += std::to_string(device()) + "-";
  std::string id = util::sha256_hex(raw + ticket.sha256);
  if (records_.shared()) {
    // A failed write leaves an unknown ticket: the PUT is refused and the client asks again.
    (void)records_.write(ticket_record(id), ticket_text(ticket, unix_now() + 3600));
    return id;
  }
  std::lock_guard<std::mutex> guard(tickets_guard_);
  auto now = std::chrono::steady_clock::now();
  for (auto it = tickets_.begin(); it != tickets_.end();) {
    it = it->second.expires < now ? tickets_.erase(it) : std::next(it);
  }
  ticket.expires = now + std::chrono::hours(1);
  tickets_[id] = std::move(ticket);
  return id;
}

std::optional<HubService::UploadTicket> HubService::claim_ticket(const std::string& ticket) {
  if (records_.shared()) {
    return update_shared_ticket(ticket, [](UploadTicket& held) {
      if (held.in_use || held.uploaded) return false;
      held.in_use = true;
      return true;
    });
  }
  std::lock_guard<std::mutex> guard(tickets_guard_);
  auto it = tickets_.find(ticket);
  if (it == tickets_.end() || it->second.expires < std::chrono::steady_clock::now() || it->second.in_use ||
      it->second.uploaded) {
    return std::nullopt;
  }
  it->second.in_use = true;
  return it->second;
}

void HubService::release_ticket(const std::string& ticket) {
  if (records_.shared()) {
    update_shared_ticket(ticket, [](UploadTicket& held) { return std::exchange(held.in_use, false); });
    return;
  }
  std::lock_guard<std::mutex> guard(tickets_guard_);
  if (auto it = tickets_.find(ticket); it != tickets_.end()) it->second.in_use = false;
}

void HubService::finish_ticket(const std::string& ticket) {
  if (records_.shared()) {
    update_shared_ticket(ticket, [](UploadTicket& held) {
      held.in_use = false;
      held.uploaded = true;
      return true;
    });
    return;
  }
  std::lock_guard<std::mutex> guard(tickets_guard_);
  if (auto it = tickets_.find(ticket); it != tickets_.end()) {
    it->second.in_use = false;
    it->second.uploaded = true;
  }
}

std::optional<HubService::UploadTicket> HubService::find_ticket(const std::string& ticket) {
  if (records_.shared()) {
    auto parsed = read_shared_ticket(ticket);
    if (!parsed) return std::nullopt;
    return parsed->first;
  }
  std::lock_guard<std::mutex> guard(tickets_guard_);
  auto it = tickets_.find(ticket);
  if (it == tickets_.end() || it->second.expires < std::chrono::steady_clock::now()) return std::nullopt;
  return it->second;
}

}  // namespace kb::hub::server
