// Benchmark results of kernel repositories (docs/hub-benchmarks.md): POST stores one validated
// run (hub/protocol/benchmark_run.h) as one record (storage/benchmark_store.h), charged to the
// uploader's quota and counted in their runs per hour; GET lists a repository's runs (optionally
// of one revision) or returns one. Readers of the repository only: a private repository's runs
// are as invisible as the repository. The repository's owners hide, unhide and delete runs; a
// hidden run is shown to them only.
#include "hub/protocol/benchmark_run.h"
#include "hub/protocol/names.h"
#include "hub/server/http_support.h"
#include "hub/server/service.h"
#include "hub/storage/commit.h"
#include "util/hash.h"

namespace kb::hub::server {

using nlohmann::json;

namespace {

json record_json(const storage::BenchmarkRecord& record, bool outsider) {
  return {{"id", record.id},
          {"revision", record.revision},
          {"uploaded_by", record.uploaded_by},
          {"uploaded_at", record.uploaded_at},
          {"outsider", outsider},
          {"hidden", record.hidden},
          {"document", json::parse(record.document)}};
}

void reply_run_not_found(Response& response, const std::string& id, const storage::RepoId& repo) {
  reply_error(response, 404, "BenchmarkNotFound",
              "Benchmark run `" + protocol::printable(id) + "` not found in `" + repo.full() + "`");
}

}  // namespace

bool HubService::benchmark_outsider(const storage::BenchmarkRecord& record, const std::string& name_space) {
  if (record.outsider) return *record.outsider;
  auto uploader = accounts_.user(record.uploaded_by);
  return !uploader || !storage::Accounts::is_member(*uploader, name_space);
}

void HubService::benchmarks(const Request& request, Response& response, const RepoRequest& target) {
  if (target.repo.type != "kernel") return reply_error(response, 404, "", "Not found");
  if (request.method == "POST") {
    if (target.rest.size() == 3 && (target.rest[2] == "hide" || target.rest[2] == "unhide")) {
      return moderate_benchmark(request, response, target, target.rest[2]);
    }
    if (target.rest.size() != 1) return reply_error(response, 404, "", "Not found");
    return post_benchmark(request, response, target);
  }
  if (request.method == "DELETE") {
    if (target.rest.size() != 2) return reply_error(response, 404, "", "Not found");
    return moderate_benchmark(request, response, target, "delete");
  }
  std::optional<storage::User> caller;
  if (!authorize(request, response, target.repo, Access::read, &caller)) return;
  // Hidden runs are for the owners' eyes only.
  bool owner = caller && storage::Accounts::is_member(*caller, target.repo.name_space);
  if (target.rest.size() == 2) {
    std::string id = percent_decode(target.rest[1]);
    auto record = benchmarks_.get(target.repo, id);
    if (!record) return reply_error(response, 500, "", record.error().message);
    if (!*record || ((*record)->hidden && !owner)) return reply_run_not_found(response, id, target.repo);
    return reply_json(response, 200, record_json(**record, benchmark_outsider(**record, target.repo.name_space)));
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
    if ((commit && record.revision != *commit) || (record.hidden && !owner)) continue;
    runs.push_back(record_json(record, benchmark_outsider(record, target.repo.name_space)));
  }
  reply_json(response, 200, {{"runs", runs}});
}

// POST .../benchmarks/{id}/hide, .../unhide and DELETE .../benchmarks/{id}: the kernel's owners
// (members of its namespace: the user, or the organization's members, who administer it on
// kernel-hub). Deleting gives the run's bytes back to its uploader's quota.
void HubService::moderate_benchmark(const Request& request, Response& response, const RepoRequest& target,
                                    const std::string& action) {
  if (!authorize(request, response, target.repo, Access::write)) return;
  std::string id = percent_decode(target.rest[1]);
  if (action == "delete") {
    auto record = benchmarks_.get(target.repo, id);
    if (!record) return reply_error(response, 500, "", record.error().message);
    if (!*record) return reply_run_not_found(response, id, target.repo);
    auto removed = benchmarks_.remove(target.repo, id);
    if (!removed) return reply_error(response, 500, "", removed.error().message);
    if (!*removed) return reply_run_not_found(response, id, target.repo);
    std::string key = storage::RepoStore::record_key(storage::BenchmarkStore::relative_path(target.repo, id));
    if (auto s = usage_.discharge(key); !s) return reply_error(response, 500, "", s.error().message);
    return reply_json(response, 200, json::object());
  }
  auto changed = benchmarks_.set_hidden(target.repo, id, action == "hide");
  if (!changed) return reply_error(response, 500, "", changed.error().message);
  if (!*changed) return reply_run_not_found(response, id, target.repo);
  reply_json(response, 200, {{"id", id}, {"hidden", action == "hide"}});
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

  if (!benchmark_posts_.admit(caller->name)) {
    return reply_error(response, 429, "", "User `" + caller->name + "` posted " +
                                              std::to_string(limits_.max_benchmark_runs_per_hour) +
                                              " benchmark runs in the last hour, the most this Hub allows; try again later");
  }
  storage::BenchmarkRecord record{storage::BenchmarkStore::new_id(), *commit, caller->name, storage::now_iso8601(),
                                  protocol::render_benchmark_run(*run),
                                  !storage::Accounts::is_member(*caller, target.repo.name_space), false};
  // Charged like every record: its bytes, within the user's quota.
  std::string key = storage::RepoStore::record_key(storage::BenchmarkStore::relative_path(target.repo, record.id));
  if (auto charged = charge_to(caller->name)(key, storage::BenchmarkStore::serialize(record).size()); !charged) {
    return reply_error(response, charged.error());
  }
  if (auto stored = benchmarks_.add(target.repo, record); !stored) {
    (void)usage_.discharge(key);
    return reply_error(response, 500, "", stored.error().message);
  }
  reply_json(response, 201, {{"id", record.id}, {"revision", record.revision}});
}

}  // namespace kb::hub::server
