// Commit serialization (canonical JSON) and ids.
#include "hub/storage/commit.h"

#include <chrono>
#include <ctime>

#include <nlohmann/json.hpp>

#include "util/hash.h"

namespace kb::hub::storage {

using nlohmann::json;

std::string serialize_commit(const Commit& commit) {
  json tree = json::object();
  for (const auto& [path, entry] : commit.tree) {
    json e = {{"oid", entry.oid}, {"sha256", entry.sha256}, {"size", entry.size}};
    if (entry.lfs) e["lfs"] = true;
    tree[path] = std::move(e);
  }
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
  json doc = json::parse(bytes, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || doc.value("format_version", 0) != kCommitFormatVersion) {
    return util::Error(util::ErrorKind::integrity, "Corrupt or unsupported commit object");
  }
  Commit commit;
  commit.parent = doc.value("parent", "");
  commit.message = doc.value("message", "");
  commit.time = doc.value("time", "");
  commit.author = doc.value("author", "");
  for (const auto& [path, e] : doc.at("tree").items()) {
    TreeEntry entry;
    entry.oid = e.value("oid", "");
    entry.sha256 = e.value("sha256", "");
    entry.size = e.value("size", uint64_t{0});
    entry.lfs = e.value("lfs", false);
    commit.tree.emplace(path, std::move(entry));
  }
  return commit;
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
