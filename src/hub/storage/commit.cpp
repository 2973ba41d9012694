// Commit serialization (canonical JSON) and ids.
#include "hub/storage/commit.h"

#include <chrono>
#include <ctime>

#include <nlohmann/json.hpp>

#include "util/hash.h"

namespace kb::hub::storage {

using nlohmann::json;

namespace {

json entries_json(const std::map<std::string, TreeEntry>& entries) {
  json tree = json::object();
  for (const auto& [path, entry] : entries) {
    json e = {{"oid", entry.oid}, {"sha256", entry.sha256}, {"size", entry.size}};
    if (entry.lfs) e["lfs"] = true;
    tree[path] = std::move(e);
  }
  return tree;
}

// Entries of a parsed record; false when `tree` is not an object of objects.
bool read_entries(const json& tree, std::map<std::string, TreeEntry>& out) {
  if (!tree.is_object()) return false;
  for (const auto& [path, e] : tree.items()) {
    if (!e.is_object()) return false;
    TreeEntry entry;
    entry.oid = e.value("oid", "");
    entry.sha256 = e.value("sha256", "");
    entry.size = e.value("size", uint64_t{0});
    entry.lfs = e.value("lfs", false);
    out.emplace(path, std::move(entry));
  }
  return true;
}

util::Error corrupt() { return util::Error(util::ErrorKind::integrity, "Corrupt or unsupported commit object"); }

}  // namespace

std::string serialize_commit(const Commit& commit) {
  json tree = entries_json(commit.tree);
  // nlohmann's object is an ordered std::map, so dump() is canonical.
  json doc = {{"format_version", kCommitFormatVersion},
              {"parent", commit.parent},
              {"tree", std::move(tree)},
              {"message", commit.message},
              {"time", commit.time}};
  // Only when set, so that commits from before authors were recorded keep their ids.
  if (!commit.author.empty()) doc["author"] = commit.author;
  return doc.dump();
}

util::Result<Commit> parse_commit(std::string_view bytes) {
  auto record = parse_commit_record(bytes);
  if (!record) return std::move(record).error();
  if (!record->snapshot) return corrupt();
  return std::move(record->commit);
}

CommitDelta diff_commits(const std::map<std::string, TreeEntry>& parent, const Commit& next) {
  CommitDelta delta;
  delta.parent = next.parent;
  delta.message = next.message;
  delta.time = next.time;
  delta.author = next.author;
  for (const auto& [path, entry] : next.tree) {
    auto old = parent.find(path);
    if (old == parent.end() || old->second.oid != entry.oid || old->second.sha256 != entry.sha256 ||
        old->second.size != entry.size || old->second.lfs != entry.lfs) {
      delta.set.emplace(path, entry);
    }
  }
  for (const auto& [path, entry] : parent) {
    if (!next.tree.count(path)) delta.removed.push_back(path);
  }
  return delta;
}

Commit apply_delta(const Commit& parent, const CommitDelta& delta) {
  Commit next;
  next.parent = delta.parent;
  next.tree = parent.tree;
  next.message = delta.message;
  next.time = delta.time;
  next.author = delta.author;
  for (const auto& path : delta.removed) next.tree.erase(path);
  for (const auto& [path, entry] : delta.set) next.tree.insert_or_assign(path, entry);
  return next;
}

std::string serialize_delta(const CommitDelta& delta) {
  json doc = {{"format_version", kDeltaFormatVersion},
              {"parent", delta.parent},
              {"set", entries_json(delta.set)},
              {"removed", delta.removed},
              {"message", delta.message},
              {"time", delta.time},
              {"depth", delta.depth},
              {"bytes_since_snapshot", delta.bytes_since_snapshot}};
  if (!delta.author.empty()) doc["author"] = delta.author;
  return doc.dump();
}

util::Result<CommitRecord> parse_commit_record(std::string_view bytes) {
  json doc = json::parse(bytes, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return corrupt();
  int version = doc.value("format_version", 0);
  CommitRecord record;
  record.commit.parent = doc.value("parent", "");
  record.commit.message = doc.value("message", "");
  record.commit.time = doc.value("time", "");
  record.commit.author = doc.value("author", "");
  if (version == kCommitFormatVersion) {
    if (!doc.contains("tree") || !read_entries(doc.at("tree"), record.commit.tree)) return corrupt();
    return record;
  }
  if (version != kDeltaFormatVersion || !doc.contains("set") || !doc.contains("removed") ||
      !doc.at("removed").is_array()) {
    return corrupt();
  }
  record.snapshot = false;
  CommitDelta& delta = record.delta;
  if (!read_entries(doc.at("set"), delta.set)) return corrupt();
  for (const auto& path : doc.at("removed")) {
    if (!path.is_string()) return corrupt();
    delta.removed.push_back(path.get<std::string>());
  }
  delta.parent = record.commit.parent;
  delta.message = record.commit.message;
  delta.time = record.commit.time;
  delta.author = record.commit.author;
  delta.depth = doc.value("depth", uint32_t{1});
  delta.bytes_since_snapshot = doc.value("bytes_since_snapshot", uint64_t{0});
  if (delta.parent.empty()) return corrupt();
  return record;
}

std::string commit_id(std::string_view canonical_bytes) {
  return util::to_hex(util::hash_bytes(util::HashAlgorithm::sha1, canonical_bytes));
}

std::string lfs_pointer(const std::string& sha256, uint64_t size) {
  return "version https://git-lfs.github.com/spec/v1\noid sha256:" + sha256 + "\nsize " +
         std::to_string(size) + "\n";
}

std::string now_iso8601() {
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[40];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &tm);
  char full[64];
  std::snprintf(full, sizeof full, "%s.%03dZ", buffer, static_cast<int>(millis));
  return full;
}

}  // namespace kb::hub::storage
