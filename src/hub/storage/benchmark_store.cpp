// Benchmark run records in the Hub's RecordStore (see benchmark_store.h).
#include "hub/storage/benchmark_store.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>

#include "hub/storage/directory_records.h"
#include "util/hash.h"

namespace kb::hub::storage {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr size_t kIdLength = 20;

util::Result<BenchmarkRecord> parse_record(const std::string& text, const std::string& path) {
  auto invalid = [&path](const std::string& why) {
    return util::Error(util::ErrorKind::io, "Benchmark record `" + path + "` is damaged: " + why);
  };
  json doc = json::parse(text, nullptr, false);
  if (!doc.is_object() || doc.value("format", 0) != kBenchmarkRecordFormat) return invalid("unknown format");
  BenchmarkRecord record;
  for (auto [key, target] : {std::pair{"id", &record.id},
                             {"revision", &record.revision},
                             {"uploaded_by", &record.uploaded_by},
                             {"uploaded_at", &record.uploaded_at}}) {
    auto it = doc.find(key);
    if (it == doc.end() || !it->is_string()) return invalid(std::string("no ") + key);
    *target = it->get<std::string>();
  }
  auto document = doc.find("document");
  if (document == doc.end() || !document->is_object()) return invalid("no document");
  record.document = document->dump();
  if (auto outsider = doc.find("outsider"); outsider != doc.end()) {
    if (!outsider->is_boolean()) return invalid("outsider is not a boolean");
    record.outsider = outsider->get<bool>();
  }
  if (auto hidden = doc.find("hidden"); hidden != doc.end()) {
    if (!hidden->is_boolean()) return invalid("hidden is not a boolean");
    record.hidden = hidden->get<bool>();
  }
  return record;
}

}  // namespace

BenchmarkStore::BenchmarkStore(const fs::path& root)
    : owned_records_(std::make_unique<DirectoryRecords>(root)), records_(*owned_records_) {}

BenchmarkStore::BenchmarkStore(RecordStore& records) : records_(records) {}

std::string BenchmarkStore::repo_dir(const RepoId& repo) {
  return "benchmarks/" + repo.type + "s/" + repo.name_space + "/" + repo.name;
}

bool BenchmarkStore::valid_id(const std::string& id) {
  return id.size() == kIdLength && id.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::string BenchmarkStore::serialize(const BenchmarkRecord& record) {
  // The document was rendered by the server itself; it is embedded as JSON, not as a string.
  json doc = {{"format", kBenchmarkRecordFormat},  {"id", record.id},
              {"revision", record.revision},       {"uploaded_by", record.uploaded_by},
              {"uploaded_at", record.uploaded_at}, {"document", json::parse(record.document)}};
  if (record.outsider) doc["outsider"] = *record.outsider;
  if (record.hidden) doc["hidden"] = true;
  return doc.dump();
}

std::string BenchmarkStore::new_id() {
  std::random_device device;
  std::string seed;
  for (int i = 0; i < 8; ++i) seed += std::to_string(device()) + "-";
  return util::sha256_hex(seed).substr(0, kIdLength);
}

util::Status BenchmarkStore::add(const RepoId& repo, const BenchmarkRecord& record) {
  if (!valid_id(record.id))
    return util::Error(util::ErrorKind::invalid, "Invalid benchmark run id `" + record.id + "`");
  auto created = records_.create(relative_path(repo, record.id), serialize(record));
  if (!created) return std::move(created).error();
  if (!*created) return util::Error(util::ErrorKind::io, "Benchmark run `" + record.id + "` exists already");
  return {};
}

util::Result<std::vector<BenchmarkRecord>> BenchmarkStore::list(const RepoId& repo) const {
  std::vector<BenchmarkRecord> out;
  std::string dir = repo_dir(repo);
  auto names = records_.list(dir);
  if (!names) return std::move(names).error();
  for (const auto& name : *names) {
    // Only finished records named by a run id.
    if (name.size() != kIdLength + 5 || name.substr(kIdLength) != ".json" || !valid_id(name.substr(0, kIdLength))) {
      continue;
    }
    std::string path = dir + "/" + name;
    auto text = records_.read(path);
    if (!text) return std::move(text).error();
    if (!*text) continue;  // removed since it was listed
    auto record = parse_record(**text, path);
    if (!record) return std::move(record).error();
    out.push_back(std::move(*record));
  }
  std::sort(out.begin(), out.end(), [](const BenchmarkRecord& a, const BenchmarkRecord& b) {
    return std::tie(a.uploaded_at, a.id) < std::tie(b.uploaded_at, b.id);
  });
  return out;
}

util::Result<std::optional<BenchmarkRecord>> BenchmarkStore::get(const RepoId& repo, const std::string& id) const {
  if (!valid_id(id)) return std::optional<BenchmarkRecord>();
  std::string path = relative_path(repo, id);
  auto text = records_.read(path);
  if (!text) return std::move(text).error();
  if (!*text) return std::optional<BenchmarkRecord>();
  auto record = parse_record(**text, path);
  if (!record) return std::move(record).error();
  return std::optional<BenchmarkRecord>(std::move(*record));
}

std::string BenchmarkStore::relative_path(const RepoId& repo, const std::string& id) {
  return repo_dir(repo) + "/" + id + ".json";
}

util::Result<bool> BenchmarkStore::set_hidden(const RepoId& repo, const std::string& id, bool hidden) {
  auto record = get(repo, id);
  if (!record) return std::move(record).error();
  if (!*record) return false;
  (*record)->hidden = hidden;
  KB_TRY(records_.write(relative_path(repo, id), serialize(**record)));
  return true;
}

util::Result<bool> BenchmarkStore::remove(const RepoId& repo, const std::string& id) {
  if (!valid_id(id)) return false;
  std::string path = relative_path(repo, id);
  auto exists = records_.exists(path);
  if (!exists) return std::move(exists).error();
  if (!*exists) return false;
  KB_TRY(records_.remove(path));
  return true;
}

}  // namespace kb::hub::storage
