// kernel-hub's HTML pages (docs/hub-pages.md): GET / (index of kernel repositories, ?search=)
// and GET /{namespace}/{name} (repository page, ?revision=), to which the Hugging Face Hub's
// /kernels/{namespace}/{name}[/tree/{revision}] redirect. The pages are anonymous views: they
// ignore credentials, so a private repository appears on none of them (a browser sends no
// Bearer token, and the server keeps no sessions). This file fills the view models of
// hub/web/pages.h from storage; the HTML is made there.
#include <algorithm>
#include <fstream>
#include <functional>
#include <vector>

#include "hub/protocol/names.h"
#include "hub/server/http_support.h"
#include "hub/server/service.h"
#include "hub/web/html.h"
#include "hub/web/pages.h"
#include "util/hash.h"
#include "util/strings.h"

namespace kb::hub::server {

namespace {

constexpr uint64_t kMaxRenderedFile = uint64_t{1} << 20;  // card and metadata.json bytes read for a page
constexpr size_t kMaxIndexRows = 1000;

void reply_page(const Request& request, Response& response, int status, std::string html) {
  response.status = status;
  response.set_header("Content-Security-Policy", web::content_security_policy());
  response.set_header("X-Content-Type-Options", "nosniff");
  response.set_header("Referrer-Policy", "no-referrer");
  response.set_header("X-Frame-Options", "DENY");
  response.set_header("Cache-Control", "no-store");
  if (request.method == "HEAD") html.clear();
  response.set_content(html, "text/html; charset=utf-8");
}

std::string query(const Request& request, const char* name) {
  return request.has_param(name) ? request.get_param_value(name) : "";
}

// Streams a file's content, wherever it is stored: the object store (LFS and inline uploads) or
// Xet storage (files uploaded through Xet exist only as xorbs).
util::Status stream_content(storage::RepoStore& store, const web::RepoFile& file,
                            const std::function<bool(const char*, size_t)>& write) {
  auto missing = [&file] {
    return util::Error(util::ErrorKind::io, "Stored content of `" + file.path + "` is missing");
  };
  if (auto size = store.objects().size(file.sha256)) {
    constexpr uint64_t kWindow = 256 * 1024;
    for (uint64_t offset = 0; offset < *size; offset += kWindow) {
      auto bytes = store.objects().read(file.sha256, offset, kWindow);
      if (!bytes || bytes->empty() || !write(bytes->data(), bytes->size())) return missing();
    }
    return {};
  }
  auto hash = store.xet().file_for_sha256(file.sha256);
  if (!hash) return missing();
  auto xet_file = store.xet().file(*hash);
  if (!xet_file || xet_file->size != file.size) return missing();
  storage::XetFileReader reader(store.xet(), *xet_file);
  if (!reader.read(0, file.size, write)) return missing();
  return {};
}

}  // namespace

bool HubService::page(const Request& request, Response& response,
                      const std::vector<std::string>& segments) {
  if (segments.empty()) {
    index_page(request, response);
    return true;
  }
  // The Hugging Face Hub's addresses of a kernel repository, which `kernel-builder upload` prints
  // (/kernels/{ns}/{name}, /kernels/{ns}/{name}/tree/{revision}): moved to this server's page.
  if (segments[0] == "kernels" && (segments.size() == 3 || (segments.size() >= 5 && segments[3] == "tree"))) {
    std::string name_space = percent_decode(segments[1]), name = percent_decode(segments[2]);
    if (!protocol::check_repo_name(name_space) || !protocol::check_repo_name(name)) return false;
    std::string location = "/" + web::url_encode(name_space) + "/" + web::url_encode(name);
    if (segments.size() >= 5) {
      std::string revision;
      for (size_t i = 4; i < segments.size(); ++i) revision += (i > 4 ? "/" : "") + percent_decode(segments[i]);
      location += "?revision=" + web::url_encode(revision);
    }
    response.status = 302;
    response.set_header("Location", location);
    return true;
  }
  if (segments.size() != 2 || segments[0] == "api") return false;
  storage::RepoId repo{"kernel", percent_decode(segments[0]), percent_decode(segments[1])};
  if (!protocol::check_repo_name(repo.name_space) || !protocol::check_repo_name(repo.name)) return false;
  repo_page(request, response, repo);
  return true;
}

void HubService::index_page(const Request& request, Response& response) {
  web::IndexView view;
  view.search = query(request, "search");
  std::string needle = util::to_lower(std::string(util::trim(view.search)));
  for (const auto& repo : store_.list_repos("kernel")) {
    if (!can_read(std::nullopt, repo)) continue;  // anonymous view: public repositories only
    ++view.total;
    if (!needle.empty() && util::to_lower(repo.full()).find(needle) == std::string::npos) continue;
    if (view.repos.size() >= kMaxIndexRows) continue;
    web::IndexEntry entry{repo.full(), "", {}};
    if (auto refs = store_.refs(repo); refs.ok()) {
      std::vector<web::RefLink> branches;
      for (const auto& [name, commit] : refs->branches) branches.push_back({name, commit});
      for (const auto& version : web::split_versions(branches).first) entry.versions.push_back(version.name);
      if (auto main = refs->branches.find("main"); main != refs->branches.end()) {
        if (auto commit = store_.load_commit(repo, main->second); commit.ok()) entry.updated = (*commit)->time;
      }
    }
    view.repos.push_back(std::move(entry));
  }
  reply_page(request, response, 200, web::render_index(view));
}

void HubService::repo_page(const Request& request, Response& response, const storage::RepoId& repo) {
  // Missing and private repositories get the same answer.
  if (!can_read(std::nullopt, repo)) {
    return reply_page(request, response, 404, web::render_not_found("Repository not found."));
  }
  web::RepoView view;
  view.repo_id = repo.full();
  view.revision = request.has_param("revision") ? request.get_param_value("revision") : "main";
  auto commit_id = protocol::check_revision(view.revision)
                       ? store_.resolve(repo, view.revision)
                       : util::Result<std::string>(storage::revision_not_found(view.revision));
  if (!commit_id.ok()) {
    return reply_page(request, response, 404,
                      web::render_not_found("Revision `" + view.revision + "` of " + repo.full() + " not found."));
  }
  view.commit = *commit_id;
  auto loaded = store_.load_commit(repo, view.commit);
  if (!loaded.ok()) return reply_page(request, response, 500, web::render_not_found(loaded.error().message));
  const storage::Commit& commit = **loaded;
  view.commit_time = commit.time;
  view.commit_message = commit.message;

  if (auto refs = store_.refs(repo); refs.ok()) {
    std::vector<web::RefLink> branches;
    for (const auto& [name, id] : refs->branches) branches.push_back({name, id});
    std::tie(view.versions, view.branches) = web::split_versions(branches);
    for (const auto& version : view.versions) {
      std::vector<std::string> paths;
      if (auto head = store_.load_commit(repo, version.commit); head.ok()) {
        for (const auto& [path, entry] : (*head)->tree) paths.push_back(path);
      }
      view.version_variants.push_back(web::variant_names(paths));
    }
    for (const auto& [name, id] : refs->tags) view.tags.push_back({name, id});
  }

  for (const auto& [path, entry] : commit.tree) view.files.push_back({path, entry.size, entry.sha256});
  auto read = [this](const web::RepoFile& file) -> util::Result<std::string> {
    if (file.size > kMaxRenderedFile) {
      return util::Error(util::ErrorKind::invalid,
                         "`" + file.path + "` is larger than " + std::to_string(kMaxRenderedFile) + " bytes");
    }
    std::string content;
    KB_TRY(stream_content(store_, file, [&content](const char* data, size_t size) {
      content.append(data, size);
      return true;
    }));
    return content;
  };
  for (const char* card : {"README.md", "CARD.md"}) {
    auto it =
        std::find_if(view.files.begin(), view.files.end(), [&](const web::RepoFile& f) { return f.path == card; });
    if (it == view.files.end()) continue;
    if (auto text = read(*it)) {
      view.card_path = card;
      view.card = std::move(*text);
      break;
    }
  }
  auto hash = [this](const web::RepoFile& file, metadata::DigestAlgorithm algorithm) -> util::Result<std::string> {
    util::Hasher hasher(algorithm == metadata::DigestAlgorithm::sha512 ? util::HashAlgorithm::sha512
                                                                       : util::HashAlgorithm::sha256);
    KB_TRY(stream_content(store_, file, [&hasher](const char* data, size_t size) {
      hasher.update(std::string_view(data, size));
      return true;
    }));
    return hasher.finish();
  };
  web::VariantSources sources{read, hash};
  view.variants = web::variant_rows(view.files, sources);

  if (auto records = benchmarks_.list(repo)) {
    for (const auto& record : *records) {
      // Stored documents were rendered by the server; one that no longer parses is left out.
      // Runs the owners hid are not shown (docs/hub-benchmarks.md); who posted each run is.
      if (record.hidden) continue;
      auto run = protocol::parse_benchmark_run(record.document);
      if (!run) continue;
      view.benchmarks.push_back({record.id, record.revision, record.uploaded_by, record.uploaded_at, std::move(*run),
                                 benchmark_outsider(record, repo.name_space)});
    }
  }
  reply_page(request, response, 200, web::render_repo_page(view));
}

}  // namespace kb::hub::server
