// Read endpoints: whoami, organization overview, capabilities, refs, revision info, tree
// listing (paginated), file resolve (streamed, with Range) and the bulk directory download.
#include <fcntl.h>
#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <set>

#include "hub/protocol/bulk_format.h"
#include "hub/protocol/error_codes.h"
#include "hub/server/http_support.h"
#include "hub/server/service.h"
#include "hub/server/tree_pages.h"
#include "util/hash.h"

namespace kb::hub::server {

using nlohmann::json;
using protocol::BulkEntry;
using protocol::kBulkContentType;
using protocol::kBulkFormatVersion;
using protocol::write_bulk_stream;

namespace {

constexpr size_t kTreePageSize = 1000;
constexpr size_t kTreeExpandPageSize = 50;

std::string etag_of(const storage::TreeEntry& entry) { return entry.lfs ? entry.sha256 : entry.oid; }

// The revision and the directory (without a trailing '/') that a tree or bulk URL names.
std::pair<std::string, std::string> revision_and_directory(const std::vector<std::string>& rest) {
  auto [revision, path_index] = split_revision(rest, 1);
  std::string dir = decoded_path(rest, path_index);
  while (!dir.empty() && dir.back() == '/') dir.pop_back();
  return {revision, dir};
}

}  // namespace

json tree_file_entry(const std::string& path, const storage::TreeEntry& entry, const std::optional<std::string>& xet_hash) {
  json out = {{"type", "file"}, {"oid", entry.oid}, {"size", entry.size}, {"path", path}};
  if (xet_hash) out["xetHash"] = *xet_hash;
  if (entry.lfs) {
    out["lfs"] = {{"oid", entry.sha256}, {"size", entry.size},
                  {"pointerSize", storage::lfs_pointer(entry.sha256, entry.size).size()}};
  }
  return out;
}

// A stable id for a directory: sha1 over the (path, oid) pairs beneath it.
std::string tree_directory_oid(const storage::Commit& commit, const std::string& dir) {
  util::Hasher hasher(util::HashAlgorithm::sha1);
  std::string prefix = dir + "/";
  for (auto it = commit.tree.lower_bound(prefix); it != commit.tree.end() && it->first.rfind(prefix, 0) == 0; ++it) {
    hasher.update(it->first.substr(prefix.size()) + " " + it->second.oid + "\n");
  }
  return util::to_hex(hasher.finish());
}

void HubService::whoami(const Request& request, Response& response) {
  std::optional<storage::User> caller;
  if (!caller_of(request, response, caller)) return;
  if (!caller) return reply_error(response, 401, "", "Invalid username or password.");
  json orgs = json::array();
  for (const auto& org : caller->orgs) orgs.push_back({{"name", org}, {"type", "org"}});
  reply_json(response, 200, {{"type", "user"}, {"name", caller->name}, {"fullname", caller->name}, {"orgs", orgs}});
}

void HubService::organization_overview(const std::string& org, Response& response) {
  auto found = accounts_.organization(org);
  if (!found) return reply_error(response, 404, "", "Organization not found");
  reply_json(response, 200, {{"name", found->name}, {"fullname", found->name}, {"avatarUrl", ""},
                             {"isVerified", found->trusted}, {"trustedKernelPublisher", found->trusted}});
}

void HubService::capabilities(Response& response) {
  reply_json(response, 200, {{"kernel-hub", 1}, {"bulk", kBulkFormatVersion}});
}

void HubService::refs(const Request& request, Response& response, const RepoRequest& target) {
  if (!authorize(request, response, target.repo, Access::read)) return;
  auto all = store_.refs(target.repo);
  if (!all.ok()) return reply_error(response, all.error());
  json branches = json::array();
  for (const auto& [name, commit] : all->branches) {
    branches.push_back({{"name", name}, {"ref", "refs/heads/" + name}, {"targetCommit", commit}});
  }
  json tags = json::array();
  for (const auto& [name, commit] : all->tags) {
    tags.push_back({{"name", name}, {"ref", "refs/tags/" + name}, {"targetCommit", commit}});
  }
  json body = {{"branches", branches}, {"converts", json::array()}, {"tags", tags}};
  if (bool_param(request, "include_prs")) {
    json prs = json::array();
    for (const auto& [number, commit] : all->pull_requests) {
      prs.push_back({{"name", std::to_string(number)}, {"ref", "refs/pr/" + std::to_string(number)},
                     {"targetCommit", commit}});
    }
    body["pullRequests"] = prs;
  }
  response.set_header("X-Kernel-Hub-Bulk", std::to_string(kBulkFormatVersion));
  reply_json(response, 200, body);
}

void HubService::revision_info(const Request& request, Response& response,
                               const RepoRequest& target, const std::string& revision) {
  if (!authorize(request, response, target.repo, Access::read)) return;
  auto info = store_.repo_info(target.repo);
  auto id = store_.resolve(target.repo, revision);
  if (!info.ok() || !id.ok()) return reply_error(response, info.ok() ? id.error() : info.error());
  auto commit = store_.load_commit(target.repo, *id);
  if (!commit.ok()) return reply_error(response, commit.error());
  json body = {{"id", target.repo.full()}, {"sha", *id}, {"private", info->is_private},
               {"author", target.repo.name_space}, {"lastModified", (*commit)->time},
               {"createdAt", info->created},
               {"gated", info->gated.empty() ? json(false) : json(info->gated)}, {"disabled", false}};
  if (target.repo.type == "model") {
    // `blobs` (files_metadata=True in huggingface_hub) adds sizes, blob ids and LFS metadata.
    bool blobs = bool_param(request, "blobs");
    json siblings = json::array();
    for (const auto& [path, entry] : (*commit)->tree) {
      json sibling = {{"rfilename", path}};
      if (blobs) {
        sibling["size"] = entry.size;
        sibling["blobId"] = entry.oid;
        if (entry.lfs) {
          sibling["lfs"] = {{"sha256", entry.sha256}, {"size", entry.size},
                            {"pointerSize", storage::lfs_pointer(entry.sha256, entry.size).size()}};
          if (auto xet_hash = store_.xet().file_for_sha256(entry.sha256)) sibling["xetHash"] = *xet_hash;
        }
      }
      siblings.push_back(std::move(sibling));
    }
    body["siblings"] = siblings;
  }
  response.set_header("X-Kernel-Hub-Bulk", std::to_string(kBulkFormatVersion));
  reply_json(response, 200, body);
}

void HubService::tree(const Request& request, Response& response, const RepoRequest& target) {
  if (!authorize(request, response, target.repo, Access::read)) return;
  auto [revision, dir] = revision_and_directory(target.rest);
  auto at = store_.commit_at(target.repo, revision);
  if (!at.ok()) return reply_error(response, at.error());
  const storage::Commit& commit = *at->commit;
  bool recursive = bool_param(request, "recursive");
  bool expand = bool_param(request, "expand");

  // A page from the cursor on (tree_pages.h): constant cost per page, however deep.
  std::optional<TreeResume> after;
  if (request.has_param("cursor")) {
    after = decode_tree_cursor(at->id, request.get_param_value("cursor"));
    if (!after) return reply_error(response, 400, "", "cursor: not a cursor of this listing (take it from the Link header)");
  }
  std::string prefix = dir.empty() ? "" : dir + "/";
  auto first = commit.tree.lower_bound(prefix);
  if (!dir.empty() && (first == commit.tree.end() || first->first.compare(0, prefix.size(), prefix) != 0)) {
    response.set_header("X-Repo-Commit", at->id);
    return reply_error(response, 404, protocol::error_code::kEntryNotFound, "Path `" + dir + "` not found at revision " + revision);
  }
  TreePage page = tree_page(commit.tree, dir, recursive, after, expand ? kTreeExpandPageSize : kTreePageSize);
  auto oids = directory_oids_of(at->id, commit);
  json body = json::array();
  for (const TreeItem& item : page.items) {
    if (item.file == nullptr) {
      body.push_back({{"type", "directory"}, {"oid", oids->at(item.path)}, {"path", item.path}});
      continue;
    }
    const storage::TreeEntry& entry = *item.file;
    json e = tree_file_entry(item.path, entry, entry.lfs ? store_.xet().file_for_sha256(entry.sha256) : std::nullopt);
    if (expand) e["lastCommit"] = {{"id", at->id}, {"title", commit.message}, {"date", commit.time}};
    body.push_back(std::move(e));
  }
  if (page.next) {
    std::string next = public_url_ + request.target.substr(0, request.target.find('?')) +
                       "?recursive=" + (recursive ? "true" : "false") + "&expand=" + (expand ? "true" : "false") +
                       "&cursor=" + encode_tree_cursor(at->id, *page.next);
    response.set_header("Link", "<" + next + ">; rel=\"next\"");
  }
  reply_json(response, 200, body);
}

std::shared_ptr<const std::map<std::string, std::string>> HubService::directory_oids_of(const std::string& commit_id,
                                                                                       const storage::Commit& commit) {
  {
    std::lock_guard<std::mutex> guard(directory_oids_guard_);
    if (auto found = directory_oids_.find(commit_id); found != directory_oids_.end()) return found->second;
  }
  auto oids = std::make_shared<const std::map<std::string, std::string>>(directory_oids(commit.tree));
  std::lock_guard<std::mutex> guard(directory_oids_guard_);
  if (directory_oids_.size() >= kDirectoryOidCommits) directory_oids_.erase(directory_oids_.begin());
  directory_oids_.emplace(commit_id, oids);
  return oids;
}

void HubService::resolve(const Request& request, Response& response, const RepoRequest& target) {
  if (!authorize(request, response, target.repo, Access::download)) return;
  auto [revision, path_index] = split_revision(target.rest, 1);
  std::string path = decoded_path(target.rest, path_index);
  auto at = store_.commit_at(target.repo, revision);
  if (!at.ok()) return reply_error(response, at.error());
  response.set_header("X-Repo-Commit", at->id);
  auto it = at->commit->tree.find(path);
  if (it == at->commit->tree.end()) {
    return reply_error(response, 404, protocol::error_code::kEntryNotFound, "Entry not found: " + path);
  }
  const storage::TreeEntry& entry = it->second;
  std::string etag = "\"" + etag_of(entry) + "\"";
  response.set_header("ETag", etag);
  response.set_header("X-Linked-Etag", etag);
  response.set_header("X-Linked-Size", std::to_string(entry.size));
  response.set_header("Accept-Ranges", "bytes");
  xet_resolve_headers(request, response, target, at->id, entry);
  // A file uploaded through Xet is stored as xorbs only: served by reconstruction.
  auto stored_size = store_.objects().size(entry.sha256);
  if (!stored_size) return serve_xet_content(response, path, entry);
  // In an object store the bytes leave from there: a redirect to a short-lived presigned URL,
  // decided after authorisation, with the same headers (clients read X-Linked-Size and
  // X-Linked-Etag from this answer to a HEAD, and follow it on a GET; docs/hub-scale.md).
  // A presigned URL is signed for GET only, and some clients (ours) follow a HEAD's redirect with
  // HEAD, which the store refuses: a HEAD is answered 200 with the metadata and the URL in
  // Location, which huggingface_hub downloads from as it would after a 302.
  if (auto url = store_.objects().presigned_get(entry.sha256, std::chrono::seconds(kPresignedUrlLifetime))) {
    response.status = request.method == "HEAD" ? 200 : 302;
    response.set_header("Location", *url);
    response.set_header("Cache-Control", "no-store");
    return;
  }
  auto local = store_.objects().local_path(entry.sha256);
  if (!local) return serve_object_bytes(response, entry, *stored_size);
  auto file = std::make_shared<OpenFile>(*local);
  if (file->fd < 0) return reply_error(response, 500, "", "Stored object of `" + path + "` is missing");
  struct stat info {};
  if (::fstat(file->fd, &info) != 0 || static_cast<uint64_t>(info.st_size) != entry.size) {
    // Never promise a Content-Length the body cannot keep.
    return reply_error(response, 500, "", "Stored object of `" + path + "` does not have its recorded size");
  }
  // File bytes: the server core applies a Range to them (200, 206 or 416; docs/hub-security.md,
  // "Ranges"), which is why the status is left unset.
  response.set_file_content(
      entry.size, "application/octet-stream",
      [file](size_t offset, size_t length, DataSink& sink) {
        std::string buffer(std::min<size_t>(length, 256 * 1024), '\0');
        ssize_t got = ::pread(file->fd, buffer.data(), buffer.size(), static_cast<off_t>(offset));
        if (got <= 0) return false;
        return sink.write(buffer.data(), static_cast<size_t>(got));
      });
  response.file_descriptor = file->fd;
  response.file_owner = file;
}

// Bytes of a stored object the Hub cannot hand to the kernel nor redirect to (an object store
// without presigned URLs): read from the store as the client asks, Range applied by the core.
void HubService::serve_object_bytes(Response& response, const storage::TreeEntry& entry, uint64_t stored_size) {
  if (stored_size != entry.size) {
    return reply_error(response, 500, "", "Stored object of `" + entry.sha256 + "` does not have its recorded size");
  }
  response.set_file_content(entry.size, "application/octet-stream",
                            [this, sha256 = entry.sha256](size_t offset, size_t length, DataSink& sink) {
                              auto bytes = store_.objects().read(sha256, offset, std::min<size_t>(length, 1 << 20));
                              if (!bytes || bytes->empty()) return false;
                              return sink.write(bytes->data(), bytes->size());
                            });
}

void HubService::bulk(const Request& request, Response& response, const RepoRequest& target) {
  if (!authorize(request, response, target.repo, Access::download)) return;
  auto [revision, dir] = revision_and_directory(target.rest);
  auto at = store_.commit_at(target.repo, revision);
  if (!at.ok()) return reply_error(response, at.error());
  response.set_header("X-Repo-Commit", at->id);
  const auto& commit = at->commit;
  std::vector<BulkEntry> entries;
  std::string prefix = dir.empty() ? "" : dir + "/";
  for (auto it = commit->tree.lower_bound(prefix); it != commit->tree.end() && it->first.rfind(prefix, 0) == 0; ++it) {
    auto local = store_.objects().local_path(it->second.sha256);
    entries.push_back(BulkEntry{it->first, it->second.size, it->second.sha256, local.value_or(""), {}});
    if (store_.objects().contains(it->second.sha256)) {
      if (!local) {
        // In an object store: read from it a window at a time.
        entries.back().produce = [this, sha256 = it->second.sha256, size = it->second.size](
                                     const std::function<bool(const char*, size_t)>& write) {
          constexpr uint64_t kWindow = 4 << 20;
          for (uint64_t offset = 0; offset < size; offset += kWindow) {
            auto bytes = store_.objects().read(sha256, offset, std::min(kWindow, size - offset));
            if (!bytes || bytes->size() != std::min(kWindow, size - offset) || !write(bytes->data(), bytes->size())) {
              return false;
            }
          }
          return true;
        };
      }
    } else {
      // Uploaded through Xet: streamed from its xorbs.
      auto file = xet_file_of(it->second, false);
      if (!file || file->size != it->second.size) {
        return reply_error(response, 500, "", "Stored content of `" + it->first + "` is missing");
      }
      auto reader = std::make_shared<storage::XetFileReader>(store_.xet(), *file);
      entries.back().produce = [reader](const std::function<bool(const char*, size_t)>& write) {
        return reader->read(0, reader->file().size, write);
      };
    }
  }
  if (entries.empty()) return reply_error(response, 404, protocol::error_code::kEntryNotFound, "Path `" + dir + "` not found");
  response.status = 200;
  response.set_chunked_content_provider(kBulkContentType, [entries](size_t, DataSink& sink) {
    bool ok = write_bulk_stream(entries, [&sink](const char* data, size_t size) { return sink.write(data, size); });
    if (ok) sink.done();
    return ok;
  });
}

}  // namespace kb::hub::server
