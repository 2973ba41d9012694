// History and community endpoints (docs/hub-api.md): commit listing (paginated with Link),
// paths-info, and discussions / pull requests, with the write rule for pull-request refs
// (docs/hub-security.md, "Pull requests").
#include <cerrno>

#include "hub/protocol/names.h"
#include "hub/protocol/requests.h"
#include "hub/server/http_support.h"
#include "hub/server/service.h"
#include "hub/storage/revisions.h"

namespace kb::hub::server {

using nlohmann::json;

namespace {

constexpr size_t kCommitsPageSize = 50;
constexpr size_t kMaxCommitsPageIndex = 20;  // `p=` beyond: the cursor (a page walked from the head costs p pages)
constexpr size_t kDiscussionsPageSize = 50;

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// The page index of `?p=`; false (after replying 400) when it is not a number.
bool page_param(const Request& request, Response& response, size_t& page) {
  page = 0;
  if (!request.has_param("p")) return true;
  const std::string text = request.get_param_value("p");
  errno = 0;
  char* end = nullptr;
  unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos || errno == ERANGE) {
    reply_error(response, 400, "", "p: expected a page number");
    return false;
  }
  page = static_cast<size_t>(value);
  return true;
}


json discussion_json(const storage::Discussion& d, const storage::RepoId& repo) {
  return {{"num", d.num},
          {"title", d.title},
          {"status", d.status},
          {"isPullRequest", d.pull_request},
          {"createdAt", d.created},
          {"author", {{"name", d.author}, {"type", "user"}}},
          {"repo", {{"name", repo.full()}, {"type", repo.type}}},
          {"pinned", false},
          {"numComments", 1}};
}

}  // namespace

bool HubService::authorize_revision(const Request& request, Response& response,
                                    const storage::RepoId& repo, const std::string& revision, bool create_pr,
                                    std::optional<storage::User>& caller) {
  if (!authorize(request, response, repo, Access::read, &caller)) return false;
  if (!caller) {
    reply_error(response, 401, "", "Authentication required to write to `" + repo.full() + "`");
    return false;
  }
  if (storage::Accounts::is_member(*caller, repo.name_space) || create_pr) return true;
  if (auto number = storage::pr_number(revision)) {
    auto pr = store_.discussion(repo, *number);
    if (pr.ok() && pr->pull_request && pr->author == caller->name) return true;
    reply_error(response, 403, "",
                "You don't have the rights to write to `" + revision + "` of `" + repo.full() +
                    "`: only its author and members of `" + repo.name_space + "` can");
    return false;
  }
  reply_error(response, 403, "",
              "You don't have the rights to write to `" + repo.full() +
                  "`; open a pull request instead (create_pr=True in huggingface_hub)");
  return false;
}

void HubService::commits(const Request& request, Response& response, const RepoRequest& target) {
  if (!authorize(request, response, target.repo, Access::read)) return;
  std::string revision = decoded_path(target.rest, 1);
  size_t page = 0;
  if (!page_param(request, response, page)) return;
  // A page costs the same wherever it is: the Link header resumes at the next commit's id
  // (`cursor`), read like a revision; `p=` (walked from the head) is kept for the first pages.
  if (page > kMaxCommitsPageIndex) {
    return reply_error(response, 400, "", "p: at most " + std::to_string(kMaxCommitsPageIndex) +
                                              "; follow the Link header's cursor for later pages");
  }
  std::string cursor = request.get_param_value("cursor");
  if (request.has_param("cursor") && (cursor.size() != 40 || cursor.find_first_not_of("0123456789abcdef") != std::string::npos)) {
    return reply_error(response, 400, "", "cursor: expected the commit id from the Link header");
  }
  auto listed = cursor.empty() ? store_.history(target.repo, revision, page * kCommitsPageSize, kCommitsPageSize)
                               : store_.history(target.repo, cursor, 0, kCommitsPageSize);
  if (!listed.ok()) return reply_error(response, listed.error());
  bool formatted = request.has_param("expand[]") && request.get_param_value("expand[]") == "formatted";
  json out = json::array();
  for (const auto& entry : listed->first) {
    const std::string& text = entry.commit->message;
    size_t newline = text.find('\n');
    std::string title = text.substr(0, newline);
    std::string body = newline == std::string::npos ? "" : text.substr(newline + 1);
    while (!body.empty() && body.front() == '\n') body.erase(0, 1);
    json authors = json::array();
    if (!entry.commit->author.empty()) authors.push_back({{"user", entry.commit->author}});
    json item = {{"id", entry.id}, {"title", title}, {"message", body}, {"authors", authors},
                 {"date", entry.commit->time}};
    if (formatted) item["formatted"] = {{"title", html_escape(title)}, {"message", html_escape(body)}};
    out.push_back(std::move(item));
  }
  if (listed->second && !listed->first.empty() && !listed->first.back().commit->parent.empty()) {
    std::string next = public_url_ + request.target.substr(0, request.target.find('?')) + "?cursor=" +
                       listed->first.back().commit->parent + (formatted ? "&expand%5B%5D=formatted" : "");
    response.set_header("Link", "<" + next + ">; rel=\"next\"");
  }
  reply_json(response, 200, out);
}

void HubService::paths_info(const Request& request, Response& response, const RepoRequest& target) {
  if (!authorize(request, response, target.repo, Access::read)) return;
  std::string revision = decoded_path(target.rest, 1);
  // huggingface_hub sends the form encoding (paths=a&paths=b&expand=False); it is turned into
  // the JSON form so that one parser checks both.
  std::string body = request.body;
  if (request.get_header_value("Content-Type").rfind("application/x-www-form-urlencoded", 0) == 0) {
    Params form;
    parse_query_text(request.body, form);
    json paths = json::array();
    bool expand = false;
    for (const auto& [key, value] : form) {
      if (key == "paths") paths.push_back(value);
      if (key == "expand") expand = value == "True" || value == "true" || value == "1";
    }
    body = json{{"paths", paths}, {"expand", expand}}.dump();
  }
  auto parsed = protocol::parse_paths_info(body);
  if (!parsed) return reply_error(response, 400, "", parsed.error().message);
  auto at = store_.commit_at(target.repo, revision);
  if (!at.ok()) return reply_error(response, at.error());
  const storage::Commit& commit = *at->commit;
  json out = json::array();
  for (std::string path : parsed->paths) {
    while (!path.empty() && path.back() == '/') path.pop_back();
    if (path.empty()) continue;
    json entry;
    if (auto it = commit.tree.find(path); it != commit.tree.end()) {
      const storage::TreeEntry& file = it->second;
      entry = tree_file_entry(path, file, file.lfs ? store_.xet().file_for_sha256(file.sha256) : std::nullopt);
    } else if (auto below = commit.tree.lower_bound(path + "/");
               below != commit.tree.end() && below->first.rfind(path + "/", 0) == 0) {
      entry = {{"type", "directory"}, {"oid", tree_directory_oid(commit, path)}, {"path", path}};
    } else {
      continue;  // missing paths are left out, as on huggingface.co
    }
    if (parsed->expand) entry["lastCommit"] = {{"id", at->id}, {"title", commit.message}, {"date", commit.time}};
    out.push_back(std::move(entry));
  }
  reply_json(response, 200, out);
}

void HubService::list_discussions(const Request& request, Response& response,
                                  const RepoRequest& target) {
  if (!authorize(request, response, target.repo, Access::read)) return;
  size_t page = 0;
  if (!page_param(request, response, page)) return;
  auto all = store_.discussions(target.repo);
  if (!all.ok()) return reply_error(response, all.error());
  std::string type = request.has_param("type") ? request.get_param_value("type") : "all";
  std::string status = request.has_param("status") ? request.get_param_value("status") : "all";
  std::string author = request.has_param("author") ? request.get_param_value("author") : "";
  std::vector<const storage::Discussion*> kept;
  for (const auto& d : *all) {
    if (type == "pull_request" && !d.pull_request) continue;
    if (type == "discussion" && d.pull_request) continue;
    bool open = d.status == "open" || d.status == "draft";
    if (status == "open" && !open) continue;
    if (status == "closed" && open) continue;
    if (!author.empty() && d.author != author) continue;
    kept.push_back(&d);
  }
  size_t start = page * kDiscussionsPageSize;
  json list = json::array();
  for (size_t i = start; i < kept.size() && i < start + kDiscussionsPageSize; ++i) {
    list.push_back(discussion_json(*kept[i], target.repo));
  }
  reply_json(response, 200, {{"discussions", list}, {"count", kept.size()}, {"start", start},
                             {"numClosedDiscussions", 0}});
}

void HubService::discussion_details(const Request& request, Response& response,
                                    const RepoRequest& target) {
  if (!authorize(request, response, target.repo, Access::read)) return;
  std::string number = percent_decode(target.rest[1]);
  if (number.empty() || number.size() > 9 || number.find_first_not_of("0123456789") != std::string::npos) {
    return reply_error(response, 400, "", "Discussion number: expected a positive integer");
  }
  auto found = store_.discussion(target.repo, std::stoi(number));
  if (!found.ok()) return reply_error(response, found.error());
  const storage::Discussion& d = *found;
  json body = discussion_json(d, target.repo);
  json author = {{"name", d.author}, {"type", "user"}};
  json events = json::array();
  events.push_back({{"id", "comment-" + std::to_string(d.num)},
                    {"type", "comment"},
                    {"createdAt", d.created},
                    {"author", author},
                    {"data", {{"edited", false},
                              {"hidden", false},
                              {"latest", {{"raw", d.description},
                                          {"html", html_escape(d.description)},
                                          {"updatedAt", d.created},
                                          {"author", author}}},
                              {"history", json::array()}}}});
  body["events"] = events;
  if (d.pull_request) {
    body["changes"] = {{"base", "refs/heads/" + d.base}};
    body["filesWithConflicts"] = json::array();
    if (auto head = store_.resolve(target.repo, "refs/pr/" + std::to_string(d.num)); head.ok()) {
      body["changes"]["headCommit"] = *head;
    }
  }
  body["url"] = public_url_ + web_prefix(target.repo) + target.repo.full() + "/discussions/" + std::to_string(d.num);
  reply_json(response, 200, body);
}

void HubService::create_discussion(const Request& request, Response& response,
                                   const RepoRequest& target) {
  std::optional<storage::User> caller;
  if (!authorize(request, response, target.repo, Access::read, &caller)) return;
  if (!caller) return reply_error(response, 401, "", "You must be authenticated to open a discussion");
  auto body = protocol::parse_create_discussion(request.body);
  if (!body) return reply_error(response, 400, "", body.error().message);
  storage::Discussion d;
  d.pull_request = body->pull_request;
  d.author = caller->name;
  d.title = body->title;
  d.description = body->description;
  d.status = body->pull_request ? "draft" : "open";
  d.base = "main";
  if (!discussion_posts_.admit(caller->name)) {
    return reply_error(response, 429, "", "User `" + caller->name + "` opened " +
                                              std::to_string(limits_.max_discussions_per_hour) +
                                              " discussions in the last hour, the most this Hub allows; try again later");
  }
  auto opened = store_.open_discussion(target.repo, d, charge_to(caller->name));
  if (!opened.ok()) return reply_error(response, opened.error());
  std::string url =
      public_url_ + web_prefix(target.repo) + target.repo.full() + "/discussions/" + std::to_string(opened->num);
  json out = discussion_json(*opened, target.repo);
  out["url"] = url;
  if (opened->pull_request) out["ref"] = "refs/pr/" + std::to_string(opened->num);
  reply_json(response, 200, out);
}

}  // namespace kb::hub::server
