// HubReader over src/hub's HubClient (HF_ENDPOINT / HF_TOKEN from the environment). This is
// the loader's trust boundary with a Hub: repo ids, revisions and paths are checked before they
// become URLs, and every commit id, listed path, object id and bulk entry name of an answer is
// checked before the answer is returned (loader/hub_input.h).
#include <memory>

#include <nlohmann/json.hpp>

#include "hub/client/hub_client.h"
#include "hub/protocol/bulk_format.h"
#include "hub/protocol/names.h"
#include "loader/cache_path.h"
#include "loader/hub_input.h"
#include "loader/hub_reader.h"
#include "util/strings.h"

namespace kb::loader {
namespace {

using hub::client::HubClient;
using hub::client::RepoRef;

RepoRef ref(RepoType type, const std::string& repo) {
  return RepoRef{type == RepoType::kernel ? "kernel" : "model", repo};
}

hub::client::HubSettings with_user_agent(const std::string& user_agent) {
  hub::client::HubSettings settings = hub::client::settings_from_environment();
  settings.user_agent = user_agent;
  return settings;
}

class HttpHubReader final : public HubReader {
 public:
  explicit HttpHubReader(const HubOptions& options) : client_(with_user_agent(options.user_agent)) {}

  util::Result<std::vector<Branch>> list_branches(RepoType type, const std::string& repo) override {
    KB_TRY(hub::protocol::check_repo_id(repo));
    KB_TRY_ASSIGN(auto refs, client_.list_refs(ref(type, repo), false));
    std::vector<Branch> out;
    for (const auto& b : refs.branches) {
      KB_TRY(check_commit_id(repo, "branch `" + b.name + "`", b.commit));
      out.push_back(Branch{b.name, b.commit});
    }
    return out;
  }

  util::Result<std::string> revision_sha(RepoType type, const std::string& repo, const std::string& revision) override {
    KB_TRY(check_kernel_request(repo, revision));
    KB_TRY_ASSIGN(auto info, client_.revision_info(ref(type, repo), revision));
    KB_TRY(check_commit_id(repo, "revision `" + revision + "`", info.sha));
    return info.sha;
  }

  util::Result<std::vector<TreeEntry>> list_tree(RepoType type, const std::string& repo, const std::string& revision,
                                                 const std::string& path, bool recursive) override {
    KB_TRY(check_kernel_request(repo, revision));
    KB_TRY(hub::protocol::check_repo_folder(path));
    KB_TRY_ASSIGN(auto items, client_.list_tree(ref(type, repo), revision, path, recursive));
    std::vector<TreeEntry> out;
    std::vector<std::string> files;
    for (const auto& item : items) {
      KB_TRY(check_listed_path(repo, path, recursive, item.path));
      if (!item.is_directory) {
        KB_TRY(check_object_id(repo, item.path, item.oid));
        if (item.lfs_sha256) KB_TRY(check_object_id(repo, item.path, *item.lfs_sha256));
        files.push_back(item.path);
      }
      out.push_back(TreeEntry{item.is_directory, item.path, item.oid, item.size, item.lfs_sha256});
    }
    if (auto clash = hub::protocol::check_no_file_folder_clash(files); !clash) {
      return clash.error().context("Refusing the file listing of `" + repo + "`");
    }
    return out;
  }

  util::Result<FetchedFile> download(RepoType type, const std::string& repo, const std::string& revision,
                                     const std::string& path, const std::filesystem::path& dest) override {
    KB_TRY(check_file_request(repo, revision, path));
    KB_TRY_ASSIGN(auto meta, client_.download_file(ref(type, repo), revision, path, dest));
    KB_TRY(check_object_id(repo, path, meta.etag));
    return FetchedFile{meta.commit, meta.etag, meta.size};
  }

  util::Result<FetchedFile> head(RepoType type, const std::string& repo, const std::string& revision,
                                 const std::string& path) override {
    KB_TRY(check_file_request(repo, revision, path));
    KB_TRY_ASSIGN(auto meta, client_.file_metadata(ref(type, repo), revision, path));
    KB_TRY(check_object_id(repo, path, meta.etag));
    return FetchedFile{meta.commit, meta.etag, meta.size};
  }

  // Any failure, an unknown organisation (404) included, means "could not verify" (docs/concepts.md),
  // not "untrusted".
  util::Result<bool> trusted_publisher(const std::string& org) override {
    KB_TRY(hub::protocol::check_repo_name(org));
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
    if (auto valid = check_kernel_request(repo, commit); !valid) return util::Result<std::vector<BulkFile>>(valid.error());
    if (!client_.supports_bulk()) return std::nullopt;
    auto files = bulk_download(ref(type, repo), commit, path, dest_dir);
    if (!files) {
      return util::Result<std::vector<BulkFile>>(
          std::move(files).error().context("Bulk download of `" + path + "` from `" + repo + "` failed"));
    }
    return files;
  }

 private:
  util::Status check_file_request(const std::string& repo, const std::string& revision, const std::string& path) {
    KB_TRY(check_kernel_request(repo, revision));
    return hub::protocol::check_repo_path(path);
  }

  // The bulk stream, each entry checked as a recursive listing of `folder` before its file is
  // created under `dest_dir`.
  util::Result<std::vector<BulkFile>> bulk_download(const RepoRef& repo, const std::string& commit,
                                                    const std::string& folder, const std::filesystem::path& dest_dir) {
    hub::protocol::BulkReader reader([&](const std::string& repo_path) -> util::Result<std::filesystem::path> {
      KB_TRY(check_listed_path(repo.id, folder, true, repo_path));
      return join_inside(dest_dir, repo_path);
    });
    util::Status fed;
    hub::client::HttpRequest request;
    request.url = client_.api_url(repo, "/bulk/" + hub::client::encode_revision(commit) + "/" +
                                            hub::client::encode_path(folder));
    auto response = client_.http().send_streaming(request, [&](std::string_view chunk) {
      fed = reader.feed(chunk);
      return fed.ok();
    });
    if (!fed) return std::move(fed).error();
    if (!response) return std::move(response).error();
    if (response->status != 200) return client_.http().http_error(*response, "bulk download of `" + folder + "`");
    KB_TRY(reader.finish());
    std::vector<BulkFile> out;
    for (const auto& entry : reader.files()) out.push_back(BulkFile{entry.path, entry.source});
    return out;
  }

  HubClient client_;
};

}  // namespace

std::unique_ptr<HubReader> make_http_hub_reader(const HubOptions& options) {
  return std::make_unique<HttpHubReader>(options);
}

}  // namespace kb::loader
