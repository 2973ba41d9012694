// Checks of what the loader takes from a Hub, a lockfile, a redirect or the user (hub_input.h).
#include "loader/hub_input.h"

#include "hub/protocol/names.h"

namespace kb::loader {
namespace {

namespace protocol = hub::protocol;

constexpr const char* kHostileHint =
    "nothing of it was downloaded or written; the Hub (HF_ENDPOINT), or a mirror or proxy on the way, "
    "sent a name that could reach outside the repository";

std::string shown(std::string_view value) { return protocol::printable(value); }

bool lower_hex(std::string_view text, size_t size) {
  if (text.size() != size) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool any_hex(std::string_view text, size_t size) {
  if (text.size() != size) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  }
  return true;
}

util::Error refused_listing(const std::string& repo_id, const std::string& folder, std::string cause) {
  std::string where = folder.empty() ? "" : " (folder `" + folder + "`)";
  return util::Error(util::ErrorKind::invalid, "Refusing the file listing of `" + repo_id + "`" + where)
      .with_cause(std::move(cause))
      .with_hint(kHostileHint);
}

}  // namespace

util::Status check_kernel_request(const std::string& repo_id, const std::string& revision) {
  KB_TRY(protocol::check_repo_id(repo_id));
  if (auto valid = protocol::check_revision(revision); !valid) {
    return valid.error().context("Refusing to load `" + repo_id + "`");
  }
  return {};
}

util::Status check_commit_id(const std::string& repo_id, std::string_view what, const std::string& commit) {
  if (any_hex(commit, 40)) return {};
  return util::Error(util::ErrorKind::invalid, "Refusing the answer of the Hub for `" + repo_id + "`: " +
                                                   shown(what) + " is `" + shown(commit) +
                                                   "`, not a commit id (40 hex digits)")
      .with_hint(kHostileHint);
}

util::Status check_listed_path(const std::string& repo_id, const std::string& folder, bool recursive,
                               const std::string& path) {
  if (auto valid = protocol::check_repo_path(path); !valid) {
    return refused_listing(repo_id, folder, valid.error().message);
  }
  // The path is valid, so it can be shown as it is from here on.
  const std::string prefix = folder.empty() ? "" : folder + "/";
  if (path.compare(0, prefix.size(), prefix) != 0 || path.size() == prefix.size()) {
    return refused_listing(repo_id, folder, "`" + path + "` lies outside `" + prefix + "`");
  }
  if (!recursive && path.find('/', prefix.size()) != std::string::npos) {
    return refused_listing(repo_id, folder, "`" + path + "` is not directly inside `" + prefix + "`");
  }
  return {};
}

util::Status check_object_id(const std::string& repo_id, const std::string& path, const std::string& id) {
  if (lower_hex(id, 40) || lower_hex(id, 64)) return {};
  return util::Error(util::ErrorKind::invalid, "Refusing the answer of the Hub for `" + repo_id + "`: `" +
                                                   shown(path) + "` has the object id `" + shown(id) +
                                                   "`, expected 40 or 64 lowercase hex digits")
      .with_hint(kHostileHint);
}

util::Status check_digest_paths(const std::string& repo_id, const std::string& variant,
                                const metadata::Digest& digest) {
  for (const auto& [path, hash] : digest.files) {
    if (auto valid = protocol::check_repo_path(path); !valid) {
      return util::Error(util::ErrorKind::invalid,
                         "Refusing the metadata.json digest of `" + repo_id + "` (variant `" + variant + "`)")
          .with_cause(valid.error().message)
          .with_hint(kHostileHint);
    }
  }
  return {};
}

}  // namespace kb::loader
