// Xet storage service of kernel-hub (docs/hub-xet.md): the Hub's token endpoints
// (xet-read-token / xet-write-token), the CAS API under /api/kernel-hub/xet (xorb and shard
// upload, global chunk dedup, file reconstruction, existence checks), signed byte ranges of stored
// xorbs, and the Xet side of resolve (X-Xet-Hash headers, content reconstructed from xorbs).
// Every hash is verified before anything is stored; objects are scoped to repositories through
// the same owned sets as LFS objects (docs/hub-security.md, "Xet storage").
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <set>
#include <thread>

#include <openssl/rand.h>

#include "hub/protocol/names.h"
#include "hub/server/byte_ranges.h"
#include "hub/server/server_core.h"
#include "hub/server/http_support.h"
#include "hub/server/service.h"
#include "hub/xet/errors.h"
#include "hub/xet/hashing.h"
#include "hub/xet/reconstruction.h"
#include "hub/xet/shard.h"
#include "hub/xet/xorb.h"
#include "util/hash.h"

namespace kb::hub::server {

using nlohmann::json;

namespace {

constexpr int64_t kXetTokenLifetime = 3600;  // seconds
constexpr int64_t kXorbUrlLifetime = 3600;
constexpr int64_t kDedupKeyLifetime = 7 * 24 * 3600;
constexpr const char* kCasPrefix = "/api/kernel-hub/xet";
// LFS bodies up to this size get their Xet form while the HEAD that asks for it waits (about a
// second here); larger ones in the background.
constexpr uint64_t kSynchronousImport = 64ull << 20;

std::string api_type(const storage::RepoId& repo) { return repo.type + "s"; }

// 400 for a malformed or unverifiable Xet object, naming what failed.
void reply_xet_invalid(Response& response, const util::Error& error) {
  reply_error(response, 400, error.code, error.message);
}

std::optional<xet::MerkleHash> parse_hash(Response& response, const std::string& text) {
  auto hash = xet::hash_from_string(text);
  if (!hash) {
    reply_error(response, 400, xet::error_code::kMalformedHash, "`" + text + "` is not a Xet hash (64 lowercase hex digits)");
    return std::nullopt;
  }
  return *hash;
}

}  // namespace

uint64_t post_body_limit(const HubLimits& limits, const std::string& target) {
  const std::string xorbs = std::string(kCasPrefix) + "/v1/xorbs/";
  bool xorb = target.compare(0, xorbs.size(), xorbs) == 0;
  return xorb ? std::max<uint64_t>(limits.max_request_body, xet::kMaxXorbSize) : limits.max_request_body;
}

const XetCredentials* HubService::xet_credentials(Response& response) {
  std::lock_guard<std::mutex> guard(xet_guard_);
  if (!xet_credentials_) {
    auto opened = XetCredentials::open(store_.records());
    if (!opened) {
      reply_error(response, 500, "", opened.error().message);
      return nullptr;
    }
    xet_credentials_ = std::move(*opened);
  }
  return &*xet_credentials_;
}

// GET /api/{type}s/{ns}/{name}/xet-{read|write}-token/{revision}[?create_pr=1]
void HubService::xet_token(const Request& request, Response& response, const RepoRequest& target,
                           XetScope scope) {
  std::string revision = decoded_path(target.rest, 1);
  // A write token for a pull request (revision "None" from clients that do not know the PR's
  // ref yet) needs only read access: what the commit then may do is decided by the commit.
  bool for_pr = bool_param(request, "create_pr");
  std::optional<storage::User> caller;
  // Any Xet token reads file contents (write supersedes read), so it needs download access:
  // a gated repository's files are for its members only.
  Access access = scope == XetScope::write && !for_pr ? Access::write : Access::download;
  if (!authorize(request, response, target.repo, access, &caller)) return;
  if (scope == XetScope::write && !caller) {
    return reply_error(response, 401, "", "Authentication required to write to `" + target.repo.full() + "`");
  }
  if (revision.empty()) revision = "main";
  if (!(for_pr && revision == "None")) {
    if (auto valid = protocol::check_revision(revision); !valid) return reply_error(response, 400, "", valid.error().message);
    // Reading needs the revision to exist; writing may create a branch through its commit.
    if (scope == XetScope::read) {
      if (auto id = store_.resolve(target.repo, revision); !id.ok()) return reply_error(response, id.error());
    }
  }
  const XetCredentials* credentials = xet_credentials(response);
  if (!credentials) return;
  XetGrant grant{scope, target.repo, caller ? caller->name : "", unix_now() + kXetTokenLifetime,
                 scope == XetScope::write && for_pr};
  std::string token = credentials->issue(grant);
  std::string cas_url = public_url_ + kCasPrefix;
  response.set_header("X-Xet-Cas-Url", cas_url);
  response.set_header("X-Xet-Access-Token", token);
  response.set_header("X-Xet-Token-Expiration", std::to_string(grant.expires));
  response.set_header("Cache-Control", "no-store");
  reply_json(response, 200, {{"accessToken", token}, {"exp", grant.expires}, {"casUrl", cas_url}});
}

std::optional<XetGrant> HubService::xet_grant(const Request& request, Response& response,
                                              XetScope needed) {
  const XetCredentials* credentials = xet_credentials(response);
  if (!credentials) return std::nullopt;
  std::string token = bearer_token(request);
  auto grant = token.empty() ? std::nullopt : credentials->verify(token, unix_now());
  if (!grant) {
    reply_error(response, 401, "", "Missing, invalid or expired Xet access token");
    return std::nullopt;
  }
  if (needed == XetScope::write && grant->scope != XetScope::write) {
    reply_error(response, 403, "", "This Xet token is read-only; uploads need a token from xet-write-token");
    return std::nullopt;
  }
  if (!xet_access_holds(grant->user, grant->repo, grant->scope, grant->pull_request)) {
    reply_error(response, 401, "", "Xet access token for a repository its user may no longer " +
                                       std::string(grant->scope == XetScope::write ? "write to" : "read"));
    return std::nullopt;
  }
  return grant;
}

// Checked on every CAS request against the accounts and the repository as they are now: the user
// may have left an organization or been removed, the repository may have become private or gated,
// or been deleted, since the token was issued (docs/hub-security.md, "Xet storage").
bool HubService::xet_access_holds(const std::string& user, const storage::RepoId& repo, XetScope scope,
                                  bool pull_request) {
  std::optional<storage::User> caller;
  if (!user.empty()) {
    caller = accounts_.user(user);
    if (!caller) return false;
  }
  bool member = caller && storage::Accounts::is_member(*caller, repo.name_space);
  auto info = store_.repo_info(repo);
  if (!info.ok() || !can_read(caller, repo) || (!member && !info->gated.empty())) return false;
  // A write token needs write access now, except one for a pull request: any signed-in reader's.
  return scope == XetScope::read || member || (pull_request && caller);
}

std::optional<storage::User> HubService::grant_caller(const XetGrant& grant) {
  if (grant.user.empty()) return std::nullopt;
  return accounts_.user(grant.user);
}

// A token reads only what its own repository references (docs/hub-security.md, "Xet storage").
bool HubService::reachable_xet_file(const XetGrant& grant, const storage::XetFile& file) {
  return store_.owns(grant.repo, file.hash) || (!file.sha256.empty() && store_.owns(grant.repo, file.sha256));
}

void HubService::xet_cas_get(const Request& request, Response& response,
                             const std::vector<std::string>& rest) {
  size_t n = rest.size();
  // hf_xet 1.0's paths (before the v1 API): chunk/, reconstruction/, xorb/ (docs/hub-xet.md).
  if (n == 3 && rest[0] == "chunk") return xet_dedup(request, response, rest[2]);
  if (n == 2 && rest[0] == "reconstruction") return xet_reconstruction(request, response, rest[1], 1);
  if (n == 3 && rest[0] == "xorb") return xet_cas_get(request, response, {"v1", "xorbs", "default", rest[2]});
  if (n == 3 && (rest[0] == "v1" || rest[0] == "v2") && rest[1] == "reconstructions") {
    return xet_reconstruction(request, response, rest[2], rest[0] == "v2" ? 2 : 1);
  }
  // The spec names the prefix default-merkledb; hf_xet 1.8 asks under "default".
  if (n == 4 && rest[0] == "v1" && rest[1] == "chunks" && (rest[2] == "default-merkledb" || rest[2] == "default")) {
    return xet_dedup(request, response, rest[3]);
  }
  if (n == 4 && rest[0] == "v1" && rest[1] == "xorbs" && rest[2] == "default") {
    auto grant = xet_grant(request, response, XetScope::read);
    if (!grant || !parse_hash(response, rest[3])) return;
    auto layout = store_.xet().xorb_layout(rest[3]);
    if (!layout || !store_.owns(grant->repo, rest[3])) {
      return reply_error(response, 404, "", "Xorb not found");
    }
    response.status = 200;
    response.set_header("Content-Length", std::to_string(layout->chunks_size));
    return;
  }
  if (n == 3 && rest[0] == "v1" && rest[1] == "files") {
    auto grant = xet_grant(request, response, XetScope::read);
    if (!grant || !parse_hash(response, rest[2])) return;
    auto file = store_.xet().file(rest[2]);
    if (!file || !reachable_xet_file(*grant, *file)) return reply_error(response, 404, "", "File not found");
    response.status = 200;
    response.set_header("Content-Length", std::to_string(file->size));
    return;
  }
  if (n == 2 && rest[0] == "data") return xet_xorb_data(request, response, rest[1]);
  reply_error(response, 404, "", "Not found");
}

void HubService::xet_cas_post(const Request& request, Response& response,
                              const std::vector<std::string>& rest) {
  size_t n = rest.size();
  if (n == 4 && rest[0] == "v1" && rest[1] == "xorbs" && rest[2] == "default") {
    return xet_upload_xorb(request, response, rest[3]);
  }
  if (n == 2 && rest[0] == "v1" && rest[1] == "shards") return xet_upload_shard(request, response);
  // hf_xet 1.0's paths: xorb/{prefix}/{hash}, shard/{prefix}/{hash}.
  if (n == 3 && rest[0] == "xorb") return xet_upload_xorb(request, response, rest[2]);
  if (n == 3 && rest[0] == "shard") return xet_upload_shard(request, response);
  reply_error(response, 404, "", "Not found");
}

// POST /v1/xorbs/default/{hash}: the body must parse and hash to its name; stored once, owned by
// the token's repository (added to its owned set; no other repository's set changes), charged to
// its user; was_inserted is whether the repository did not own it before.
void HubService::xet_upload_xorb(const Request& request, Response& response,
                                 const std::string& hash_text) {
  auto grant = xet_grant(request, response, XetScope::write);
  if (!grant) return;
  auto hash = parse_hash(response, hash_text);
  if (!hash) return;
  if (request.body.size() > xet::kMaxXorbSize) {
    return reply_error(response, 413, xet::error_code::kXorbTooLarge,
                       "Xorb of " + std::to_string(request.body.size()) + " bytes exceeds the limit of " +
                           std::to_string(xet::kMaxXorbSize) + " bytes");
  }
  auto layout = xet::verify_xorb(request.body, *hash);
  if (!layout) {
    int status = layout.error().code == xet::error_code::kXorbTooLarge ? 413 : 400;
    return reply_error(response, status, layout.error().code, layout.error().message);
  }
  uint64_t size = layout->chunks_size + kRecordBookkeeping;  // and its index and ledger lines
  const std::string& user = grant->user;
  // The answer depends on this repository only: whether another one holds the xorb is nobody's
  // business (docs/hub-security.md, "Xet storage").
  bool owned_before = store_.owns(grant->repo, hash_text);
  bool charged_before = usage_.has(user, hash_text);
  if (!charged_before && !usage_.reserve(user, size, limits_.quota)) {
    return reply_error(response, 413, "", "Storing a xorb of " + std::to_string(layout->chunks_size) +
                                              " bytes would exceed the storage quota of " + std::to_string(limits_.quota) +
                                              " bytes of user `" + user + "`");
  }
  auto stored = store_.xet().put_xorb(request.body, *layout);
  util::Status indexed;
  if (stored) {
    for (uint32_t i = 0; i < layout->chunks.size() && indexed; ++i) {
      if (i == 0 || xet::is_global_dedup_eligible(layout->chunks[i].hash)) {
        indexed = store_.xet().index_chunk(xet::hash_to_string(layout->chunks[i].hash), hash_text, i);
      }
    }
  }
  auto owned = stored && indexed ? store_.add_owned(grant->repo, {hash_text}) : util::Status();
  auto charged = stored && indexed && owned ? usage_.charge(user, hash_text, size) : util::Status();
  if (!charged_before) usage_.release(user, size);
  if (!stored) return reply_error(response, 500, "", stored.error().message);
  if (!indexed) return reply_error(response, 500, "", indexed.error().message);
  if (!owned) return reply_error(response, 500, "", owned.error().message);
  if (!charged) return reply_error(response, 500, "", charged.error().message);
  reply_json(response, 200, {{"was_inserted", !owned_before}});
}

// POST /v1/shards: every referenced xorb must be stored and reachable for the token's repository,
// every hash of the shard must match the stored xorbs (xet::verify_uploaded_shard), and each
// file's SHA-256 is checked by reading its content back before the file is recorded.
void HubService::xet_upload_shard(const Request& request, Response& response) {
  auto grant = xet_grant(request, response, XetScope::write);
  if (!grant) return;
  auto shard = xet::parse_shard(request.body);
  if (!shard) {
    int status = shard.error().code == xet::error_code::kShardTooLarge ? 413 : 400;
    return reply_error(response, status, shard.error().code, shard.error().message);
  }
  // What verifying it costs is bounded by its size (docs/hub-xet.md, "Verification cost").
  if (auto cost = xet::check_shard_cost(*shard, request.body.size()); !cost) return reply_xet_invalid(response, cost.error());
  uint64_t read_back = 0;
  for (const auto& info : shard->files) {
    auto known = store_.xet().file(xet::hash_to_string(info.file_hash));
    if (!known) read_back += info.size();
  }
  if (uint64_t budget = xet::verification_budget(request.body.size()).content_bytes; read_back > budget) {
    return reply_error(response, 400, xet::error_code::kShardTooCostly,
                       "Shard describes " + std::to_string(read_back) + " bytes of new files; a shard of " +
                           std::to_string(request.body.size()) + " bytes may describe at most " + std::to_string(budget) +
                           " (upload such files in several shards, or over LFS)");
  }
  auto caller = grant_caller(*grant);
  std::set<std::string> xorbs;
  for (const auto& file : shard->files) {
    for (const auto& term : file.terms) xorbs.insert(xet::hash_to_string(term.xorb_hash));
  }
  for (const auto& xorb : shard->xorbs) xorbs.insert(xet::hash_to_string(xorb.xorb_hash));
  // One answer whether a xorb exists elsewhere or nowhere: nothing about other repositories leaks.
  for (const auto& xorb : xorbs) {
    if (!store_.xet().has_xorb(xorb) || !reachable_object(caller, grant->repo, xorb)) {
      return reply_error(response, 400, xet::error_code::kUnknownXorb,
                         "Shard references xorb `" + xorb + "`, which was not uploaded to `" + grant->repo.full() + "`");
    }
  }
  std::map<std::string, storage::XorbLayout> layouts;
  auto lookup = [&](const xet::MerkleHash& hash) -> util::Result<std::vector<xet::ChunkHashAndSize>> {
    std::string key = xet::hash_to_string(hash);
    auto it = layouts.find(key);
    if (it == layouts.end()) {
      auto layout = store_.xet().xorb_layout(key);
      if (!layout) return std::move(layout).error();
      it = layouts.emplace(key, std::move(*layout)).first;
    }
    return it->second.chunk_hashes();
  };
  if (auto verified = xet::verify_uploaded_shard(*shard, lookup); !verified) {
    return reply_xet_invalid(response, verified.error());
  }
  // Every file is checked before any is recorded, so a refused shard leaves nothing behind.
  std::vector<storage::XetFile> checked;
  for (const auto& info : shard->files) {
    std::string file_hash = xet::hash_to_string(info.file_hash);
    if (!info.sha256) {
      return reply_error(response, 400, xet::error_code::kShardVerificationFailed,
                         "File `" + file_hash + "` has no SHA-256 (metadata extension); git repositories name files by it");
    }
    if (info.size() > limits_.max_file_size) {
      return reply_error(response, 413, "", "File `" + file_hash + "` of " + std::to_string(info.size()) +
                                                " bytes exceeds the maximum file size of " +
                                                std::to_string(limits_.max_file_size) + " bytes of this Hub");
    }
    std::string sha256 = util::to_hex(std::string_view(reinterpret_cast<const char*>(info.sha256->data()), 32));
    // hf_xet (1.0 to 1.8) gives an empty file the SHA-256 of zeros: it stands for that of no bytes.
    if (info.size() == 0 && sha256 == std::string(64, '0')) sha256 = util::sha256_hex("");
    storage::XetFile file{file_hash, sha256, info.size(), {}};
    for (const auto& term : info.terms) {
      file.terms.push_back(storage::XetTerm{xet::hash_to_string(term.xorb_hash), term.chunk_begin, term.chunk_end,
                                            term.unpacked_size});
    }
    // The file hash fixes the content, so a file already recorded with this SHA-256 was checked.
    auto known = store_.xet().file(file_hash);
    if (!known || known->sha256 != sha256) {
      storage::XetFileReader reader(store_.xet(), file);
      util::Hasher hasher(util::HashAlgorithm::sha256);
      bool read = reader.read(0, file.size, [&hasher](const char* data, size_t size) {
        hasher.update(std::string_view(data, size));
        return true;
      });
      if (!read) return reply_error(response, 500, "", "Cannot read back file `" + file_hash + "` from its xorbs");
      if (util::to_hex(hasher.finish()) != sha256) {
        return reply_error(response, 400, xet::error_code::kShardVerificationFailed,
                           "The SHA-256 given for file `" + file_hash + "` is not that of its content");
      }
    }
    checked.push_back(std::move(file));
  }
  // The file records are charged to the uploader before any is written, as one record named by the
  // files it describes (docs/hub-security.md, "Storage quota"): over the quota, nothing is recorded.
  uint64_t record_bytes = 0;
  std::string described;
  for (const auto& file : checked) {
    record_bytes += storage::XetStore::file_record_bytes(file);
    described += file.hash + "\n";
  }
  if (!checked.empty()) {
    std::string key = storage::RepoStore::record_key("xet/shards/" + util::sha256_hex(described));
    if (auto charged = charge_to(grant->user)(key, record_bytes); !charged) return reply_error(response, charged.error());
  }
  for (size_t i = 0; i < checked.size(); ++i) {
    const storage::XetFile& file = checked[i];
    if (auto put = store_.xet().put_file(file); !put) return reply_error(response, 500, "", put.error().message);
    // The first chunk of every file is eligible for global dedup (deduplication.md).
    if (!file.terms.empty()) {
      const auto& first = file.terms.front();
      const auto& layout = layouts.at(first.xorb);
      (void)store_.xet().index_chunk(xet::hash_to_string(layout.chunks[first.chunk_begin].hash), first.xorb,
                                     first.chunk_begin);
    }
    if (auto owned = store_.add_owned(grant->repo, {file.hash, file.sha256}); !owned) {
      return reply_error(response, 500, "", owned.error().message);
    }
  }
  // The xorbs the shard references become owned too (as objects referenced by a commit do), so
  // the repository's files never depend on a xorb only another repository owns.
  if (auto owned = store_.add_owned(grant->repo, {xorbs.begin(), xorbs.end()}); !owned) {
    return reply_error(response, 500, "", owned.error().message);
  }
  reply_json(response, 200, {{"result", 1}});
}

// GET /v1/chunks/default-merkledb/{hash}: a shard describing the xorb that holds the chunk, if
// the token's repository can reach it, with chunk hashes keyed by a fresh key (shard.md).
void HubService::xet_dedup(const Request& request, Response& response, const std::string& chunk) {
  auto grant = xet_grant(request, response, XetScope::read);
  if (!grant || !parse_hash(response, chunk)) return;
  auto location = store_.xet().chunk_location(chunk);
  if (!location || !store_.owns(grant->repo, location->first)) {
    return reply_error(response, 404, "", "Chunk not tracked by global deduplication");
  }
  auto layout = store_.xet().xorb_layout(location->first);
  if (!layout) return reply_error(response, 404, "", "Chunk not tracked by global deduplication");
  xet::ShardFooter footer;
  if (RAND_bytes(footer.chunk_hash_key.data(), static_cast<int>(footer.chunk_hash_key.size())) != 1) {
    return reply_error(response, 500, "", "Cannot generate a key");
  }
  footer.creation_timestamp = static_cast<uint64_t>(unix_now());
  footer.key_expiry = footer.creation_timestamp + kDedupKeyLifetime;
  xet::XorbEntry entry;
  entry.xorb_hash = layout->hash;
  entry.unpacked_size = static_cast<uint32_t>(layout->unpacked_size);
  entry.serialized_size = static_cast<uint32_t>(layout->chunks_size);
  uint64_t offset = 0;
  for (const auto& c : layout->chunks) {
    entry.chunks.push_back(
        xet::XorbChunkEntry{xet::keyed_hash(footer.chunk_hash_key, c.hash), static_cast<uint32_t>(offset), c.size});
    offset += c.size;
  }
  xet::Shard shard;
  shard.xorbs.push_back(std::move(entry));
  shard.footer = footer;
  response.status = 200;
  response.set_content(xet::serialize_shard(shard), "application/octet-stream");
}

// GET /v{1,2}/reconstructions/{file_id} with an optional Range: the terms covering the range
// (xet::plan_reconstruction) and signed URLs for the byte ranges of their chunks in stored xorbs.
void HubService::xet_reconstruction(const Request& request, Response& response,
                                    const std::string& file_id, int version) {
  auto grant = xet_grant(request, response, XetScope::read);
  if (!grant || !parse_hash(response, file_id)) return;
  auto file = store_.xet().file(file_id);
  if (!file || !reachable_xet_file(*grant, *file)) return reply_error(response, 404, "", "File not found");
  std::optional<xet::RequestedRange> range;
  // The Range here names the part of the file to reconstruct; the JSON answer itself is never
  // sliced (docs/hub-security.md, "Ranges"). A zero-byte file ignores it; a suffix is the end.
  if (!request.ranges.empty() && file->size > 0) {
    auto [from, to] = request.ranges.front();
    if (from < 0) {
      if (to <= 0) return reply_error(response, 416, xet::error_code::kRangeNotSatisfiable, "Empty suffix range");
      from = static_cast<int64_t>(file->size - std::min<uint64_t>(static_cast<uint64_t>(to), file->size));
      to = -1;
    }
    range = xet::RequestedRange{static_cast<uint64_t>(from),
                                to < 0 ? std::nullopt : std::optional<uint64_t>(static_cast<uint64_t>(to))};
  }
  std::vector<xet::FileTerm> terms;
  for (const auto& term : file->terms) {
    auto hash = xet::hash_from_string(term.xorb);
    if (!hash) return reply_error(response, 500, "", "Stored file `" + file_id + "` is corrupt");
    terms.push_back(xet::FileTerm{*hash, static_cast<uint32_t>(term.unpacked_size), term.chunk_begin, term.chunk_end, {}});
  }
  auto lookup = [this](const xet::MerkleHash& hash) { return store_.xet().xorb_layout(xet::hash_to_string(hash)); };
  auto plan = xet::plan_reconstruction(terms, range, lookup);
  if (!plan) {
    if (plan.error().code == xet::error_code::kRangeNotSatisfiable) {
      response.set_header("Content-Range", "bytes */" + std::to_string(file->size));
      return reply_error(response, 416, plan.error().code, plan.error().message);
    }
    return reply_error(response, 500, plan.error().code, plan.error().message);
  }
  const XetCredentials* credentials = xet_credentials(response);
  if (!credentials) return;
  int64_t expires = unix_now() + kXorbUrlLifetime;
  auto url = [&](const xet::MerkleHash& hash, std::span<const xet::FetchRange> ranges) {
    // In an object store, the client reads the xorb from there (it sends a Range header): a
    // presigned URL, handed out after this grant was checked.
    if (auto presigned = store_.xet().blobs().presigned_get(storage::XetStore::xorb_key(xet::hash_to_string(hash)),
                                                            std::chrono::seconds(kPresignedUrlLifetime))) {
      return *presigned;
    }
    XorbRangeGrant signed_ranges{xet::hash_to_string(hash), {}, expires, grant->repo, grant->user};
    for (const auto& r : ranges) signed_ranges.ranges.emplace_back(r.byte_start, r.byte_end);
    return public_url_ + kCasPrefix + "/data/" + signed_ranges.xorb + "?" + credentials->sign_range(signed_ranges);
  };
  response.status = 200;
  response.set_content(version == 2 ? xet::reconstruction_json_v2(*plan, url) : xet::reconstruction_json_v1(*plan, url),
                       "application/json");
}

// GET /data/{xorb}?range=&expires=&sig=: the signed byte range of a stored xorb; the Range
// header may ask for any part of it.
void HubService::xet_xorb_data(const Request& request, Response& response, const std::string& xorb) {
  const XetCredentials* credentials = xet_credentials(response);
  if (!credentials) return;
  auto grant = credentials->verify_range(xorb, request.get_param_value("range"), request.get_param_value("expires"),
                                         request.get_param_value("repo"), request.get_param_value("user"),
                                         request.get_param_value("sig"), unix_now());
  if (!grant) return reply_error(response, 403, "", "Invalid or expired xorb URL");
  // Handed out to one user for one repository: both still hold, and the repository still
  // references the xorb.
  if (!xet_access_holds(grant->user, grant->repo, XetScope::read, false) || !store_.owns(grant->repo, xorb)) {
    return reply_error(response, 403, "", "Xorb URL of a repository its user may no longer read");
  }
  std::string key = storage::XetStore::xorb_key(xorb);
  auto local = store_.xet().blobs().local_path(key);
  std::shared_ptr<OpenFile> file;
  uint64_t size = 0;
  if (local) {
    file = std::make_shared<OpenFile>(*local);
    struct stat info {};
    if (file->fd < 0 || ::fstat(file->fd, &info) != 0) return reply_error(response, 404, "", "Xorb not found");
    size = static_cast<uint64_t>(info.st_size);
  } else {
    auto stored = store_.xet().blobs().size(key);
    if (!stored || !stored->has_value()) return reply_error(response, 404, "", "Xorb not found");
    size = **stored;
  }
  if (request.ranges.empty()) return reply_error(response, 416, "", "A Range header within the signed ranges is required");
  for (auto [from, to] : request.ranges) {
    if (from < 0 || to < from || static_cast<uint64_t>(to) >= size ||
        !grant->admits(static_cast<uint64_t>(from), static_cast<uint64_t>(to))) {
      return reply_error(response, 403, "", "Range outside the signed ranges of this URL");
    }
  }
  // Merged, they must stay a few ranges: the core would otherwise send the whole xorb.
  if (plan_byte_ranges(request.ranges, size).kind != RangePlan::Kind::partial) {
    return reply_error(response, 416, "", "At most " + std::to_string(kMaxByteRanges) + " ranges may be asked for at once");
  }
  // File bytes: the server core answers 206 with the requested ranges (docs/hub-security.md, "Ranges").
  if (!file) {
    response.set_file_content(size, "application/octet-stream",
                              [this, key](size_t offset, size_t length, DataSink& sink) {
                                auto bytes = store_.xet().blobs().read(key, offset, std::min<size_t>(length, 1 << 20));
                                if (!bytes || bytes->empty()) return false;
                                return sink.write(bytes->data(), bytes->size());
                              });
    return;
  }
  response.set_file_content(size, "application/octet-stream",
                                [file](size_t offset, size_t length, DataSink& sink) {
                                  std::string buffer(std::min<size_t>(length, 256 * 1024), '\0');
                                  ssize_t got = ::pread(file->fd, buffer.data(), buffer.size(), static_cast<off_t>(offset));
                                  if (got <= 0) return false;
                                  return sink.write(buffer.data(), static_cast<size_t>(got));
                                });
}

std::optional<storage::XetFile> HubService::xet_file_of(const storage::TreeEntry& entry, bool import) {
  if (!entry.lfs) return std::nullopt;
  if (auto hash = store_.xet().file_for_sha256(entry.sha256)) {
    if (auto file = store_.xet().file(*hash)) return *file;
  }
  if (!import || !store_.objects().contains(entry.sha256)) return std::nullopt;
  std::string object = storage::ObjectStore::key_of(entry.sha256);
  if (entry.size <= kSynchronousImport) {
    auto imported = store_.xet().import_file(object, entry.sha256);
    if (!imported) return std::nullopt;
    return *imported;
  }
  // Larger bodies are converted in the background (a client's metadata request would time out
  // waiting); until then they are answered without Xet headers and downloaded over plain HTTP.
  {
    std::lock_guard<std::mutex> guard(xet_guard_);
    if (!xet_imports_.insert(entry.sha256).second) return std::nullopt;
  }
  std::thread([this, object, sha256 = entry.sha256] {
    (void)store_.xet().import_file(object, sha256);
    std::lock_guard<std::mutex> guard(xet_guard_);
    xet_imports_.erase(sha256);
  }).detach();
  return std::nullopt;
}

void HubService::xet_resolve_headers(const Request& request, Response& response,
                                     const RepoRequest& target, const std::string& commit,
                                     const storage::TreeEntry& entry) {
  // Converting an LFS body to Xet form costs a pass over it: done when a client asks for a
  // file's metadata (HEAD, what Xet-capable clients send first), not on plain downloads.
  auto file = xet_file_of(entry, request.method == "HEAD");
  if (!file) return;
  // The Xet form of a body the repository references is the repository's too: its xorbs are
  // owned with it, or the signed xorb URLs of its reconstruction would be refused (an LFS upload
  // read through Xet; docs/hub-xet.md).
  std::vector<std::string> xorbs;
  for (const auto& term : file->terms) {
    if (!store_.owns(target.repo, term.xorb)) xorbs.push_back(term.xorb);
  }
  if (!xorbs.empty() && !store_.add_owned(target.repo, xorbs)) return;
  std::string route = public_url_ + "/api/" + api_type(target.repo) + "/" + target.repo.full() + "/xet-read-token/" + commit;
  response.set_header("X-Xet-Hash", file->hash);
  response.set_header("X-Xet-Refresh-Route", route);
  response.set_header("Link", "<" + route + ">; rel=\"xet-auth\"");
}

std::optional<uint64_t> HubService::stored_content_size(const std::string& sha256) {
  if (auto size = store_.objects().size(sha256)) return size;
  if (auto hash = store_.xet().file_for_sha256(sha256)) {
    if (auto file = store_.xet().file(*hash)) return file->size;
  }
  return std::nullopt;
}

void HubService::serve_xet_content(Response& response, const std::string& path,
                                   const storage::TreeEntry& entry) {
  auto file = xet_file_of(entry, false);
  if (!file || file->size != entry.size) {
    return reply_error(response, 500, "", "Stored content of `" + path + "` is missing");
  }
  auto reader = std::make_shared<storage::XetFileReader>(store_.xet(), *file);
  // File bytes, as in resolve: the server core applies a Range.
  response.set_file_content(entry.size, "application/octet-stream",
                                [reader](size_t offset, size_t length, DataSink& sink) {
                                  uint64_t chunk = std::min<uint64_t>(length, 1024 * 1024);
                                  return reader->read(offset, chunk, [&sink](const char* data, size_t size) {
                                    return sink.write(data, size);
                                  });
                                });
}

}  // namespace kb::hub::server
