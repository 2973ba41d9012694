// Xet access tokens and signed xorb range URLs (see xet_tokens.h).
#include "hub/server/xet_tokens.h"

#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <chrono>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "hub/storage/directory_records.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/strings.h"

namespace kb::hub::server {

namespace fs = std::filesystem;

namespace {

constexpr size_t kSecretSize = 32;
constexpr std::string_view kTokenPrefix = "xet2_";

std::optional<std::string> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(hex.data() + 2 * i, hex.data() + 2 * i + 2, value, 16);
    if (ec != std::errc() || end != hex.data() + 2 * i + 2) return std::nullopt;
    out[i] = static_cast<char>(value);
  }
  return out;
}

std::optional<int64_t> parse_int(std::string_view text) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool same_mac(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

util::Result<XetCredentials> XetCredentials::open(const fs::path& root) {
  fs::path dir = root / "xet";
  fs::path file = dir / "secret";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return util::Error(util::ErrorKind::io, "Cannot create `" + dir.string() + "`: " + ec.message());
  if (!fs::exists(file)) {
    // Written to a private temporary file, then linked into place: link() fails if another
    // process created the secret first, and then both use that one.
    std::string secret(kSecretSize, '\0');
    if (RAND_bytes(reinterpret_cast<unsigned char*>(secret.data()), static_cast<int>(secret.size())) != 1) {
      return util::Error(util::ErrorKind::io, "Cannot generate the Xet secret");
    }
    fs::path temp = dir / ("secret.tmp." + std::to_string(::getpid()));
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return util::Error(util::ErrorKind::io, "Cannot write `" + temp.string() + "`");
    bool written = ::write(fd, secret.data(), secret.size()) == static_cast<ssize_t>(secret.size()) && ::fsync(fd) == 0;
    ::close(fd);
    if (written) (void)::link(temp.c_str(), file.c_str());
    fs::remove(temp, ec);
  }
  auto secret = util::read_file(file);
  if (!secret) return std::move(secret).error();
  if (secret->size() != kSecretSize) {
    return util::Error(util::ErrorKind::integrity, "Xet secret `" + file.string() + "` is not " +
                                                       std::to_string(kSecretSize) + " bytes long");
  }
  return XetCredentials(std::move(*secret));
}

util::Result<XetCredentials> XetCredentials::open(storage::RecordStore& records) {
  if (auto* directory = dynamic_cast<storage::DirectoryRecords*>(&records)) return open(directory->root());
  auto stored = records.read("xet/secret");
  if (!stored) return std::move(stored).error();
  if (!*stored) {
    std::string secret(kSecretSize, '\0');
    if (RAND_bytes(reinterpret_cast<unsigned char*>(secret.data()), static_cast<int>(secret.size())) != 1) {
      return util::Error(util::ErrorKind::io, "Cannot generate the Xet secret");
    }
    // Of replicas starting together, the first to create it wins and all read that one.
    auto created = records.create("xet/secret", secret);
    if (!created) return std::move(created).error();
    stored = records.read("xet/secret");
    if (!stored) return std::move(stored).error();
    if (!*stored) return util::Error(util::ErrorKind::io, "The Xet secret vanished after it was created");
  }
  if ((*stored)->size() != kSecretSize) {
    return util::Error(util::ErrorKind::integrity,
                       "Xet secret record `xet/secret` is not " + std::to_string(kSecretSize) + " bytes long");
  }
  return XetCredentials(std::move(**stored));
}

std::string XetCredentials::mac(std::string_view purpose, std::string_view message) const {
  std::string input = std::string(purpose) + '\0' + std::string(message);
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()),
       reinterpret_cast<const unsigned char*>(input.data()), input.size(), out, &length);
  return std::string(reinterpret_cast<const char*>(out), length);
}

// Token text: "xet2_" hex(fields joined by '\n') "." hex(mac). Fields cannot hold '\n': names
// are validated before a token is issued. (xet1_ tokens carried the user's organizations; they
// are no longer accepted.)
std::string XetCredentials::issue(const XetGrant& grant) const {
  std::string scope = grant.scope == XetScope::read ? "read" : grant.pull_request ? "write-pr" : "write";
  std::string payload = scope + "\n" + grant.repo.type + "\n" + grant.repo.name_space + "\n" + grant.repo.name + "\n" +
                        grant.user + "\n" + std::to_string(grant.expires);
  return std::string(kTokenPrefix) + util::to_hex(payload) + "." + util::to_hex(mac("token", payload));
}

std::optional<XetGrant> XetCredentials::verify(std::string_view token, int64_t now) const {
  if (token.substr(0, kTokenPrefix.size()) != kTokenPrefix) return std::nullopt;
  token.remove_prefix(kTokenPrefix.size());
  size_t dot = token.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto payload = from_hex(token.substr(0, dot));
  auto signature = from_hex(token.substr(dot + 1));
  if (!payload || !signature || !same_mac(*signature, mac("token", *payload))) return std::nullopt;
  auto fields = util::split(*payload, '\n');
  if (fields.size() != 6 || (fields[0] != "read" && fields[0] != "write" && fields[0] != "write-pr")) return std::nullopt;
  auto expires = parse_int(fields[5]);
  if (!expires || *expires <= now) return std::nullopt;
  XetGrant grant;
  grant.scope = fields[0] == "read" ? XetScope::read : XetScope::write;
  grant.pull_request = fields[0] == "write-pr";
  grant.repo = storage::RepoId{fields[1], fields[2], fields[3]};
  grant.user = fields[4];
  grant.expires = *expires;
  return grant;
}

bool XorbRangeGrant::admits(uint64_t first, uint64_t last) const {
  for (const auto& [from, to] : ranges) {
    if (first >= from && last <= to && first <= last) return true;
  }
  return false;
}

namespace {

std::string range_message(const std::string& xorb, const std::string& range, const std::string& expires,
                          const std::string& repo, const std::string& user) {
  return xorb + "\n" + range + "\n" + expires + "\n" + repo + "\n" + user;
}

std::string repo_text(const storage::RepoId& repo) { return repo.type + "s/" + repo.name_space + "/" + repo.name; }

}  // namespace

std::string XetCredentials::sign_range(const XorbRangeGrant& grant) const {
  std::string range;
  for (const auto& [first, last] : grant.ranges) {
    if (!range.empty()) range += ",";
    range += std::to_string(first) + "-" + std::to_string(last);
  }
  std::string expires = std::to_string(grant.expires);
  std::string repo = repo_text(grant.repo);
  // Names are [A-Za-z0-9_.-] (and the two slashes): nothing in them needs percent-encoding.
  return "range=" + range + "&expires=" + expires + "&repo=" + repo + "&user=" + grant.user + "&sig=" +
         util::to_hex(mac("xorb-range", range_message(grant.xorb, range, expires, repo, grant.user)));
}

std::optional<XorbRangeGrant> XetCredentials::verify_range(const std::string& xorb, const std::string& range,
                                                           const std::string& expires, const std::string& repo,
                                                           const std::string& user, const std::string& signature,
                                                           int64_t now) const {
  auto given = from_hex(signature);
  if (!given || !same_mac(*given, mac("xorb-range", range_message(xorb, range, expires, repo, user)))) return std::nullopt;
  auto until = parse_int(expires);
  if (!until || *until <= now) return std::nullopt;
  auto parts = util::split(repo, '/');
  if (parts.size() != 3 || parts[0].size() < 2 || parts[0].back() != 's') return std::nullopt;
  XorbRangeGrant grant{xorb, {}, *until, storage::RepoId{parts[0].substr(0, parts[0].size() - 1), parts[1], parts[2]}, user};
  for (const auto& part : util::split(range, ',')) {
    size_t dash = part.find('-');
    if (dash == std::string::npos) return std::nullopt;
    auto first = parse_int(std::string_view(part).substr(0, dash));
    auto last = parse_int(std::string_view(part).substr(dash + 1));
    if (!first || !last || *first < 0 || *last < *first) return std::nullopt;
    grant.ranges.emplace_back(static_cast<uint64_t>(*first), static_cast<uint64_t>(*last));
  }
  if (grant.ranges.empty()) return std::nullopt;
  return grant;
}

}  // namespace kb::hub::server
