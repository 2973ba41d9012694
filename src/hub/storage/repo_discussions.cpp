// Discussions and pull-request records of the repository store.
#include "hub/storage/repo_store.h"

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

#include "hub/storage/repo_store_internal.h"
#include "hub/storage/storage_errors.h"

namespace kb::hub::storage {

using nlohmann::json;

namespace {

Discussion discussion_of(int number, const json& d) {
  Discussion entry;
  entry.num = number;
  entry.pull_request = d.value("pull_request", false);
  entry.author = d.value("author", "");
  entry.title = d.value("title", "");
  entry.description = d.value("description", "");
  entry.status = d.value("status", "open");
  entry.created = d.value("created", "");
  entry.base = d.value("base", "");
  return entry;
}

// "<n>.json" -> n, for n in [1, 999999999]; nullopt for any other name.
std::optional<int> record_number(const std::string& name) {
  if (name.size() < 6 || name.size() > 14 || name.compare(name.size() - 5, 5, ".json") != 0) return std::nullopt;
  std::string digits = name.substr(0, name.size() - 5);
  if (digits[0] == '0' || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoi(digits);
}

}  // namespace

// One record per discussion (discussions/<n>.json), written once; the single discussions.json of
// older roots is read first, so their discussions keep their numbers.
util::Result<std::map<int, Discussion>> RepoStore::read_discussions(const RepoId& repo) const {
  std::map<int, Discussion> all;
  auto legacy = records_->read(relative(repo, "discussions.json"));
  if (!legacy) return storage_failure(std::move(legacy).error());
  if (*legacy) {
    json doc = json::parse(**legacy, nullptr, false);
    if (doc.is_discarded() || doc.value("format_version", 0) != 1 || !doc.contains("discussions")) {
      return storage_failure("Corrupt discussions file");
    }
    for (const auto& [number, d] : doc.at("discussions").items()) {
      int num = std::stoi(number);
      all[num] = discussion_of(num, d);
    }
  }
  auto names = records_->list(relative(repo, "discussions"));
  if (!names) return storage_failure(std::move(names).error());
  for (const auto& name : *names) {
    auto number = record_number(name);
    if (!number) continue;
    auto text = records_->read(relative(repo, "discussions/" + name));
    if (!text || !*text) return storage_failure("Cannot read discussion #" + std::to_string(*number));
    json doc = json::parse(**text, nullptr, false);
    if (doc.is_discarded() || doc.value("format_version", 0) != 1) {
      return storage_failure("Corrupt discussion file #" + std::to_string(*number));
    }
    all[*number] = discussion_of(*number, doc);
  }
  return all;
}

util::Status RepoStore::write_discussion(const RepoId& repo, const Discussion& d, const std::string& key,
                                         const ChargeRecord& charge) {
  json doc = {{"format_version", 1},         {"pull_request", d.pull_request}, {"author", d.author},
              {"title", d.title},            {"description", d.description},   {"status", d.status},
              {"created", d.created},        {"base", d.base}};
  std::string bytes = doc.dump();
  if (charge) KB_TRY(charge(key, bytes.size()));
  if (auto s = records_->write(relative(repo, "discussions/" + std::to_string(d.num) + ".json"), bytes); !s) {
    return storage_failure(s.error());
  }
  return {};
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
  auto all = read_discussions(repo);
  if (!all.ok()) return all.error();
  std::vector<Discussion> out;
  for (auto it = all->rbegin(); it != all->rend(); ++it) out.push_back(it->second);
  return out;
}

util::Result<Discussion> RepoStore::discussion(const RepoId& repo, int num) const {
  auto info = repo_info(repo);
  if (!info.ok()) return info.error();
  auto all = read_discussions(repo);
  if (!all.ok()) return all.error();
  auto it = all->find(num);
  if (it == all->end()) return discussion_not_found("Discussion #" + std::to_string(num) + " not found");
  return it->second;
}

util::Result<Discussion> RepoStore::open_discussion(const RepoId& repo, Discussion discussion,
                                                   const ChargeRecord& charge) {
  return edit_refs(repo, [&](Refs& refs) -> util::Result<Discussion> {
    auto all = read_discussions(repo);
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
    KB_TRY(write_discussion(repo, discussion,
                            record_key(relative(repo, "discussions/" + std::to_string(discussion.num) + ".json")), charge));
    if (discussion.pull_request) {
      refs.pull_requests[discussion.num] = head;
      if (auto s = write_refs(repo, refs); !s) return storage_failure(s.error());
    }
    return discussion;
  });
}

}  // namespace kb::hub::storage
