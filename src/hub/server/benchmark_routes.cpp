// Benchmark results of kernel repositories (docs/hub-benchmarks.md): POST stores one validated
// run (hub/protocol/benchmark_run.h) as one record (storage/benchmark_store.h), charged to the
// uploader's quota; GET lists a repository's runs (optionally of one revision) or returns one.
// Readers of the repository only: a private repository's runs are as invisible as the repository.
#include "hub/protocol/benchmark_run.h"
#include "hub/protocol/names.h"
#include "hub/server/http_support.h"
#include "hub/server/service.h"
#include "hub/storage/commit.h"
#include "util/hash.h"

namespace kb::hub::server {

using nlohmann::json;

namespace {

json record_json(const storage::BenchmarkRecord& record) {
  return {{"id", record.id},
          {"revision", record.revision},
          {"uploaded_by", record.uploaded_by},
          {"uploaded_at", record.uploaded_at},
          {"document", json::parse(record.document)}};
}

}  // namespace

void HubService::benchmarks(const Request& request, Response& response, const RepoRequest& target) {
  if (target.repo.type != "kernel") return reply_error(response, 404, "", "Not found");
  if (request.method == "POST") {
    if (target.rest.size() != 1) return reply_error(response, 404, "", "Not found");
    return post_benchmark(request, response, target);
  }
  if (!authorize(request, response, target.repo, Access::read)) return;
  if (target.rest.size() == 2) {
    auto record = benchmarks_.get(target.repo, percent_decode(target.rest[1]));
    if (!record) return reply_error(response, 500, "", record.error().message);
    if (!*record) {
      return reply_error(response, 404, "BenchmarkNotFound",
                         "Benchmark run `" + protocol::printable(percent_decode(target.rest[1])) + "` not found in `" +
                             target.repo.full() + "`");
    }
    return reply_json(response, 200, record_json(**record));
  }
  if (target.rest.size() != 1) return reply_error(response, 404, "", "Not found");
  std::optional<std::string> commit;
  if (request.has_param("revision")) {
    auto id = store_.resolve(target.repo, request.get_param_value("revision"));
    if (!id.ok()) return reply_error(response, id.error());
    commit = *id;
  }
  auto records = benchmarks_.list(target.repo);
  if (!records) return reply_error(response, 500, "", records.error().message);
  json runs = json::array();
  for (const auto& record : *records) {
    if (!commit || record.revision == *commit) runs.push_back(record_json(record));
  }
  reply_json(response, 200, {{"runs", runs}});
}

void HubService::post_benchmark(const Request& request, Response& response,
                                const RepoRequest& target) {
  std::optional<storage::User> caller;
  if (!authorize(request, response, target.repo, Access::read, &caller)) return;
  if (!caller) {
    return reply_error(response, 401, "",
                       "Authentication required to upload benchmark results to `" + target.repo.full() + "`");
  }
  if (request.body.size() > protocol::kMaxBenchmarkBody) {
    return reply_error(response, 413, "",
                       "Benchmark run of " + std::to_string(request.body.size()) +
                           " bytes is larger than the limit of " + std::to_string(protocol::kMaxBenchmarkBody) +
                           " bytes");
  }
  auto run = protocol::parse_benchmark_run(request.body);
  if (!run) return reply_error(response, 400, "", run.error().message);
  if (run->kernel.repo_id != target.repo.full()) {
    return reply_error(response, 400, "",
                       "kernel.repo_id: `" + run->kernel.repo_id + "` is not the repository of this URL (`" +
                           target.repo.full() + "`)");
  }
  auto commit = store_.resolve(target.repo, run->kernel.revision);
  if (!commit.ok()) return reply_error(response, commit.error());

  storage::BenchmarkRecord record{storage::BenchmarkStore::new_id(), *commit, caller->name,
                                  storage::now_iso8601(), protocol::render_benchmark_run(*run)};
  // Charged like an upload: the stored record's bytes, within the user's quota.
  std::string bytes = storage::BenchmarkStore::serialize(record);
  uint64_t size = bytes.size();
  if (!usage_.reserve(caller->name, size, limits_.quota)) {
    return reply_error(response, 413, "",
                       "Storing " + std::to_string(size) +
                           " bytes of benchmark results would exceed the storage quota of " +
                           std::to_string(limits_.quota) + " bytes of user `" + caller->name + "`");
  }
  auto stored = benchmarks_.add(target.repo, record);
  auto charged = stored ? usage_.charge(caller->name, util::sha256_hex(bytes), size) : util::Status();
  usage_.release(caller->name, size);
  if (!stored) return reply_error(response, 500, "", stored.error().message);
  if (!charged) return reply_error(response, 500, "", charged.error().message);
  reply_json(response, 201, {{"id", record.id}, {"revision", record.revision}});
}

}  // namespace kb::hub::server
