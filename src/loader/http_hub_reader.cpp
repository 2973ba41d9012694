// HubReader over src/hub's HubClient (HF_ENDPOINT / HF_TOKEN from the environment).
#include <memory>

#include <nlohmann/json.hpp>

#include "hub/client/hub_client.h"
#include "loader/hub_reader.h"
#include "util/strings.h"

namespace kb::loader {
namespace {

using hub::client::HubClient;
using hub::client::RepoRef;

RepoRef ref(RepoType type, const std::string& repo) {
  return RepoRef{type == RepoType::kernel ? "kernel" : "model", repo};
}

class HttpHubReader final : public HubReader {
 public:
  explicit HttpHubReader(const HubOptions& options) : client_(hub::client::settings_from_environment()) {
    (void)options;  // the user agent is set by the client from its own build information
  }

  util::Result<std::vector<Branch>> list_branches(RepoType type, const std::string& repo) override {
    auto refs = client_.list_refs(ref(type, repo), false);
    if (!refs) return std::move(refs).error();
    std::vector<Branch> out;
    for (const auto& b : refs->branches) out.push_back(Branch{b.name, b.commit});
    return out;
  }

  util::Result<std::string> revision_sha(RepoType type, const std::string& repo, const std::string& revision) override {
    auto info = client_.revision_info(ref(type, repo), revision);
    if (!info) return std::move(info).error();
    return info->sha;
  }

  util::Result<std::vector<TreeEntry>> list_tree(RepoType type, const std::string& repo, const std::string& revision,
                                                 const std::string& path, bool recursive) override {
    auto items = client_.list_tree(ref(type, repo), revision, path, recursive);
    if (!items) return std::move(items).error();
    std::vector<TreeEntry> out;
    for (const auto& item : *items) {
      out.push_back(TreeEntry{item.is_directory, item.path, item.oid, item.size, item.lfs_sha256});
    }
    return out;
  }

  util::Result<FetchedFile> download(RepoType type, const std::string& repo, const std::string& revision,
                                     const std::string& path, const std::filesystem::path& dest) override {
    auto meta = client_.download_file(ref(type, repo), revision, path, dest);
    if (!meta) return std::move(meta).error();
    return FetchedFile{meta->commit, meta->etag, meta->size};
  }

  util::Result<FetchedFile> head(RepoType type, const std::string& repo, const std::string& revision,
                                 const std::string& path) override {
    auto meta = client_.file_metadata(ref(type, repo), revision, path);
    if (!meta) return std::move(meta).error();
    return FetchedFile{meta->commit, meta->etag, meta->size};
  }

  // Any failure, an unknown organisation (404) included, means "could not verify" (loader.md §6);
  // HubClient::organization_is_trusted folds 404 into false, so the request is made here.
  util::Result<bool> trusted_publisher(const std::string& org) override {
    auto response = client_.http().send(
        {"GET", client_.settings().endpoint + "/api/organizations/" + hub::client::encode_revision(org) + "/overview",
         {}, {}, {}, {}});
    if (!response) return std::move(response).error();
    if (response->status != 200) return client_.http().http_error(*response, "organization lookup");
    auto body = nlohmann::json::parse(response->body, nullptr, false);
    if (!body.is_object()) return util::Error(util::ErrorKind::network, "Invalid organization overview");
    const auto& flag = body.contains("trustedKernelPublisher") ? body["trustedKernelPublisher"] : nlohmann::json();
    if (flag.is_boolean()) return flag.get<bool>();
    if (flag.is_number()) return flag.get<double>() != 0;
    if (flag.is_string()) return !flag.get<std::string>().empty();
    return false;
  }

  std::optional<util::Result<std::vector<BulkFile>>> download_directory(RepoType type, const std::string& repo,
                                                                        const std::string& commit,
                                                                        const std::string& path,
                                                                        const std::filesystem::path& dest_dir) override {
    if (!client_.supports_bulk()) return std::nullopt;
    auto paths = client_.bulk_download(ref(type, repo), commit, path, dest_dir);
    if (!paths) return util::Result<std::vector<BulkFile>>(std::move(paths).error());
    std::vector<BulkFile> out;
    for (const auto& p : *paths) out.push_back(BulkFile{p, dest_dir / std::filesystem::path(p)});
    return util::Result<std::vector<BulkFile>>(std::move(out));
  }

 private:
  HubClient client_;
};

}  // namespace

std::string hub_error_code(const util::Error& error) {
  for (const auto& cause : error.causes) {
    if (util::starts_with(cause, "X-Error-Code: ")) return cause.substr(14);
  }
  return "";
}

std::unique_ptr<HubReader> make_http_hub_reader(const HubOptions& options) {
  return std::make_unique<HttpHubReader>(options);
}

}  // namespace kb::loader
