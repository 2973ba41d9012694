// Hub client: file metadata, downloads (single, parallel directory, bulk).
#include <atomic>

#include <nlohmann/json.hpp>

#include "hub/client/hub_client.h"
#include "hub/protocol/bulk_format.h"

namespace kb::hub::client {

namespace fs = std::filesystem;

namespace {

std::string normalise_etag(std::string etag) {
  if (etag.rfind("W/", 0) == 0) etag = etag.substr(2);
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') etag = etag.substr(1, etag.size() - 2);
  return etag;
}

FileMetadata metadata_of(const HttpResponse& response) {
  FileMetadata meta;
  meta.commit = response.header("x-repo-commit");
  std::string etag = response.header("x-linked-etag");
  meta.etag = normalise_etag(etag.empty() ? response.header("etag") : etag);
  std::string size = response.header("x-linked-size");
  if (size.empty()) size = response.header("content-length");
  meta.size = size.empty() ? 0 : std::strtoull(size.c_str(), nullptr, 10);
  return meta;
}

}  // namespace

util::Result<FileMetadata> HubClient::file_metadata(const RepoRef& repo, const std::string& revision,
                                                    const std::string& path) {
  auto response = http_.send_expecting_ok({"HEAD", resolve_url(repo, revision, path), {{"Accept-Encoding", "identity"}}, {}, {}, {}}, "file lookup of `" + path + "`");
  if (!response) return std::move(response).error();
  return metadata_of(*response);
}

util::Result<FileMetadata> HubClient::download_file(const RepoRef& repo, const std::string& revision,
                                                    const std::string& path, const fs::path& destination,
                                                    const ProgressCallback& progress) {
  auto meta = file_metadata(repo, revision, path);
  if (!meta) return meta;
  auto response = http_.download(resolve_url(repo, revision, path), destination, meta->size, progress);
  if (!response) return std::move(response).error();
  return meta;
}

bool HubClient::supports_bulk() {
  std::lock_guard<std::mutex> guard(bulk_guard_);
  if (!bulk_supported_) {
    auto response = http_.send({"GET", settings().endpoint + "/api/kernel-hub/capabilities", {}, {}, {}, {}});
    bool supported = false;
    if (response && response->status == 200) {
      auto body = nlohmann::json::parse(response->body, nullptr, false);
      supported = body.is_object() && body.value("bulk", 0) == protocol::kBulkFormatVersion;
    }
    bulk_supported_ = supported;
  }
  return *bulk_supported_;
}

util::Result<std::vector<std::string>> HubClient::bulk_download(const RepoRef& repo, const std::string& revision,
                                                                const std::string& directory,
                                                                const fs::path& destination_root) {
  protocol::BulkReader reader([&destination_root](const std::string& repo_path) -> util::Result<fs::path> {
    return destination_root / repo_path;
  });
  util::Status feed_status;
  HttpRequest request;
  request.url = api_url(repo, "/bulk/" + encode_revision(revision) + "/" + encode_path(directory));
  auto response = http_.send_streaming(request, [&](std::string_view chunk) {
    feed_status = reader.feed(chunk);
    return feed_status.ok();
  });
  if (!feed_status) return std::move(feed_status).error();
  if (!response) return std::move(response).error();
  if (response->status != 200) return http_.http_error(*response, "bulk download of `" + directory + "`");
  KB_TRY(reader.finish());
  std::vector<std::string> paths;
  for (const auto& entry : reader.files()) paths.push_back(entry.path);
  return paths;
}

util::Result<std::vector<std::string>> HubClient::download_directory(const RepoRef& repo, const std::string& revision,
                                                                     const std::string& directory,
                                                                     const fs::path& destination_root, int parallelism,
                                                                     const ProgressCallback& progress) {
  if (supports_bulk()) return bulk_download(repo, revision, directory, destination_root);
  auto items = list_tree(repo, revision, directory, true);
  if (!items) return std::move(items).error();
  std::vector<const TreeItem*> files;
  for (const auto& item : *items) {
    if (!item.is_directory) files.push_back(&item);
  }
  std::atomic<uint64_t> done{0};
  auto status = run_parallel(files.size(), parallelism, [&](size_t i) -> util::Status {
    auto response = http_.download(resolve_url(repo, revision, files[i]->path), destination_root / files[i]->path,
                                   files[i]->size, {});
    if (!response) return std::move(response).error();
    if (progress) progress(++done, files.size());
    return {};
  });
  if (!status) return std::move(status).error();
  std::vector<std::string> paths;
  for (const auto* file : files) paths.push_back(file->path);
  return paths;
}

}  // namespace kb::hub::client
