// Discussions and pull-request records of the repository store.
#include "hub/storage/repo_store.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "hub/storage/repo_store_internal.h"
#include "hub/storage/storage_errors.h"
#include "util/fs.h"

namespace kb::hub::storage {

namespace fs = std::filesystem;
using nlohmann::json;

util::Result<std::map<int, Discussion>> RepoStore::read_discussions(const fs::path& dir) {
  std::map<int, Discussion> all;
  auto text = util::read_file(dir / "discussions.json");
  if (!text) return all;  // none yet
  json doc = json::parse(*text, nullptr, false);
  if (doc.is_discarded() || doc.value("format_version", 0) != 1 || !doc.contains("discussions")) {
    return storage_failure("Corrupt discussions file");
  }
  for (const auto& [number, d] : doc.at("discussions").items()) {
    Discussion entry;
    entry.num = std::stoi(number);
    entry.pull_request = d.value("pull_request", false);
    entry.author = d.value("author", "");
    entry.title = d.value("title", "");
    entry.description = d.value("description", "");
    entry.status = d.value("status", "open");
    entry.created = d.value("created", "");
    entry.base = d.value("base", "");
    all[entry.num] = std::move(entry);
  }
  return all;
}

util::Status RepoStore::write_discussions(const fs::path& dir, const std::map<int, Discussion>& all) {
  json list = json::object();
  for (const auto& [number, d] : all) {
    list[std::to_string(number)] = {{"pull_request", d.pull_request}, {"author", d.author}, {"title", d.title},
                                    {"description", d.description}, {"status", d.status}, {"created", d.created},
                                    {"base", d.base}};
  }
  return util::write_file_atomic(dir / "discussions.json", json{{"format_version", 1}, {"discussions", list}}.dump(2));
}

int RepoStore::next_number(const Refs& refs, const std::map<int, Discussion>& all) {
  // Discussions and pull requests share one sequence, as on huggingface.co.
  int last = 0;
  if (!refs.pull_requests.empty()) last = refs.pull_requests.rbegin()->first;
  if (!all.empty()) last = std::max(last, all.rbegin()->first);
  return last + 1;
}

util::Result<std::vector<Discussion>> RepoStore::discussions(const RepoId& repo) const {
  auto info = repo_info(repo);
  if (!info.ok()) return info.error();
  auto all = read_discussions(repo_dir(repo));
  if (!all.ok()) return all.error();
  std::vector<Discussion> out;
  for (auto it = all->rbegin(); it != all->rend(); ++it) out.push_back(it->second);
  return out;
}

util::Result<Discussion> RepoStore::discussion(const RepoId& repo, int num) const {
  auto info = repo_info(repo);
  if (!info.ok()) return info.error();
  auto all = read_discussions(repo_dir(repo));
  if (!all.ok()) return all.error();
  auto it = all->find(num);
  if (it == all->end()) return discussion_not_found("Discussion #" + std::to_string(num) + " not found");
  return it->second;
}

util::Result<Discussion> RepoStore::open_discussion(const RepoId& repo, Discussion discussion) {
  return edit_refs(repo, [&](const fs::path& dir, Refs& refs) -> util::Result<Discussion> {
    auto all = read_discussions(dir);
    if (!all.ok()) return all.error();
    discussion.num = next_number(refs, *all);
    discussion.created = now_iso8601();
    std::string head;
    if (discussion.pull_request) {
      auto it = refs.branches.find(discussion.base);
      if (it == refs.branches.end()) {
        return revision_not_found("Invalid rev id: " + discussion.base);
      }
      head = it->second;
    }
    (*all)[discussion.num] = discussion;
    if (auto s = write_discussions(dir, *all); !s) return storage_failure(s.error().message);
    if (discussion.pull_request) {
      refs.pull_requests[discussion.num] = head;
      if (auto s = write_refs(dir, refs); !s) return storage_failure(s.error().message);
    }
    return discussion;
  });
}

}  // namespace kb::hub::storage
