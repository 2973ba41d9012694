// Hub client: repositories, refs, branches, trees, revision info, organizations.
#include <atomic>
#include <thread>

#include <nlohmann/json.hpp>

#include "hub/client/hub_client.h"
#include "util/strings.h"

namespace kb::hub::client {

using nlohmann::json;

namespace {

std::string encode(const std::string& text, bool keep_slash) {
  static const char digits[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                 c == '_' || c == '.' || c == '~' || (keep_slash && c == '/');
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += digits[c >> 4];
      out += digits[c & 15];
    }
  }
  return out;
}

util::Result<json> json_body(const HttpResponse& response) {
  json body = json::parse(response.body, nullptr, false);
  if (body.is_discarded()) {
    return util::Error(util::ErrorKind::network, "Invalid JSON in the response from " + response.url)
        .with_hint("check that HF_ENDPOINT names a Hub");
  }
  return body;
}

// The next-page URL of a `Link: <url>; rel="next"` header, if any.
std::optional<std::string> next_link(const std::string& header) {
  for (const auto& part : util::split(header, ',')) {
    if (part.find("rel=\"next\"") == std::string::npos) continue;
    size_t open = part.find('<');
    size_t close = part.find('>');
    if (open != std::string::npos && close != std::string::npos && close > open) {
      return part.substr(open + 1, close - open - 1);
    }
  }
  return std::nullopt;
}

}  // namespace

std::string encode_revision(const std::string& revision) { return encode(revision, false); }
std::string encode_path(const std::string& path) { return encode(path, true); }

util::Status run_parallel(size_t count, int parallelism, const std::function<util::Status(size_t)>& job) {
  std::atomic<size_t> next{0};
  std::mutex guard;
  std::optional<util::Error> first_error;
  auto worker = [&] {
    for (size_t i = next++; i < count; i = next++) {
      {
        std::lock_guard<std::mutex> lock(guard);
        if (first_error) return;
      }
      auto status = job(i);
      if (!status) {
        std::lock_guard<std::mutex> lock(guard);
        if (!first_error) first_error = status.error();
      }
    }
  };
  size_t threads = std::min<size_t>(count, static_cast<size_t>(std::max(1, parallelism)));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& thread : pool) thread.join();
  if (first_error) return *first_error;
  return {};
}

HubClient::HubClient(HubSettings settings, RetryPolicy policy) : http_(std::move(settings), std::move(policy)) {}

std::string HubClient::api_url(const RepoRef& repo, const std::string& suffix) const {
  return settings().endpoint + "/api/" + repo.api_segment() + "/" + repo.id + suffix;
}

std::string HubClient::resolve_url(const RepoRef& repo, const std::string& revision, const std::string& path) const {
  return settings().endpoint + "/" + repo.web_prefix() + repo.id + "/resolve/" + encode_revision(revision) + "/" +
         encode_path(path);
}

util::Result<WhoAmI> HubClient::whoami() {
  auto response = http_.send_expecting_ok({"GET", settings().endpoint + "/api/whoami-v2", {}, {}, {}, {}}, "whoami");
  if (!response) return std::move(response).error();
  auto body = json_body(*response);
  if (!body) return std::move(body).error();
  WhoAmI who;
  who.name = body->value("name", "");
  for (const auto& org : body->value("orgs", json::array())) who.orgs.push_back(org.value("name", ""));
  return who;
}

util::Result<std::string> HubClient::create_repo(const RepoRef& repo, bool is_private) {
  auto slash = repo.id.find('/');
  json payload = {{"name", repo.id.substr(slash + 1)}, {"organization", repo.id.substr(0, slash)},
                  {"type", repo.type}, {"private", is_private}};
  auto response = http_.send({"POST", settings().endpoint + "/api/repos/create",
                              {{"Content-Type", "application/json"}}, payload.dump(), {}, {}});
  if (!response) return std::move(response).error();
  if (response->status == 409) return settings().endpoint + "/" + repo.web_prefix() + repo.id;
  if (response->status != 200) return http_.http_error(*response, "repository creation");
  auto body = json_body(*response);
  if (!body) return std::move(body).error();
  return body->value("url", settings().endpoint + "/" + repo.web_prefix() + repo.id);
}

util::Result<RepoRefs> HubClient::list_refs(const RepoRef& repo, bool include_prs) {
  auto response =
      http_.send_expecting_ok({"GET", api_url(repo, "/refs") + (include_prs ? "?include_prs=1" : ""), {}, {}, {}, {}}, "listing refs");
  if (!response) return std::move(response).error();
  auto body = json_body(*response);
  if (!body) return std::move(body).error();
  RepoRefs refs;
  for (const auto& b : body->value("branches", json::array())) {
    refs.branches.push_back({b.value("name", ""), b.value("ref", ""), b.value("targetCommit", "")});
  }
  for (const auto& p : body->value("pullRequests", json::array())) {
    refs.pull_requests.push_back({p.value("name", ""), p.value("ref", ""), p.value("targetCommit", "")});
  }
  return refs;
}

util::Status HubClient::create_branch(const RepoRef& repo, const std::string& branch,
                                      const std::optional<std::string>& starting_point) {
  json payload = json::object();
  if (starting_point) payload["startingPoint"] = *starting_point;
  auto response = http_.send_expecting_ok({"POST", api_url(repo, "/branch/" + encode_revision(branch)),
                              {{"Content-Type", "application/json"}}, payload.dump(), {}, {}}, "branch creation");
  if (!response) return std::move(response).error();
  return {};
}

util::Result<std::vector<TreeItem>> HubClient::list_tree(const RepoRef& repo, const std::string& revision,
                                                         const std::string& path, bool recursive) {
  std::string url = api_url(repo, "/tree/" + encode_revision(revision) + (path.empty() ? "" : "/" + encode_revision(path))) +
                    "?recursive=" + (recursive ? "true" : "false") + "&expand=false";
  std::vector<TreeItem> items;
  for (int page = 0; page < 100000; ++page) {
    auto response = http_.send_expecting_ok({"GET", url, {}, {}, {}, {}}, "listing files");
    if (!response) return std::move(response).error();
    auto body = json_body(*response);
    if (!body) return std::move(body).error();
    for (const auto& e : *body) {
      TreeItem item;
      item.is_directory = e.value("type", "") == "directory";
      item.path = e.value("path", "");
      item.oid = e.value("oid", "");
      item.size = e.value("size", uint64_t{0});
      if (e.contains("lfs") && e["lfs"].is_object()) item.lfs_sha256 = e["lfs"].value("oid", "");
      items.push_back(std::move(item));
    }
    auto next = next_link(response->header("link"));
    if (!next) break;
    url = *next;
  }
  return items;
}

util::Result<RevisionInfo> HubClient::revision_info(const RepoRef& repo, const std::string& revision) {
  auto response = http_.send_expecting_ok({"GET", api_url(repo, "/revision/" + encode_revision(revision)), {}, {}, {}, {}}, "revision lookup");
  if (!response) return std::move(response).error();
  auto body = json_body(*response);
  if (!body) return std::move(body).error();
  RevisionInfo info;
  info.sha = body->value("sha", "");
  info.is_private = body->value("private", false);
  for (const auto& s : body->value("siblings", json::array())) info.siblings.push_back(s.value("rfilename", ""));
  if (info.sha.empty()) return util::Error(util::ErrorKind::network, "Revision info without `sha` from " + response->url);
  return info;
}

}  // namespace kb::hub::client
