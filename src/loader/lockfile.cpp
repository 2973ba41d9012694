// Lock hash computation and kernels.lock (de)serialisation.
#include "loader/lockfile.h"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

#include "loader/hub_input.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/strings.h"

namespace kb::loader {
namespace {

bool lockable(const std::string& path) {
  if (!util::starts_with(path, "build/torch") && !util::starts_with(path, "build/tvm-ffi")) return false;
  if (util::ends_with(path, ".pyc")) return false;
  for (const auto& part : util::split(path, '/')) {
    if (part == "__pycache__") return false;
  }
  return true;
}

std::string hex_decode(const std::string& hex) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return 0;
  };
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(nibble(hex[i]) * 16 + nibble(hex[i + 1])));
  }
  return out;
}

}  // namespace

std::map<std::string, VariantLock> compute_variant_locks(const std::vector<TreeFile>& files) {
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> groups;
  for (const auto& file : files) {
    if (!lockable(file.path)) continue;
    auto parts = util::split(file.path, '/');
    if (parts.size() < 3) continue;  // a file directly under build/ belongs to no variant
    std::vector<std::string> rest(parts.begin() + 2, parts.end());
    groups[parts[1]].emplace_back(util::join(rest, "/"), file.hash);
  }
  std::map<std::string, VariantLock> out;
  for (auto& [variant, pairs] : groups) {
    std::sort(pairs.begin(), pairs.end());  // byte-wise, filename first then hash
    util::Hasher hasher(util::HashAlgorithm::sha256);
    for (const auto& [name, hash] : pairs) {
      hasher.update(name);
      // "The raw bytes of the hex hash": the decoded digest, not its ASCII spelling.
      hasher.update(hex_decode(hash));
    }
    out[variant] = VariantLock{"sha256-" + util::to_hex(hasher.finish()), "git_lfs_concat"};
  }
  return out;
}

std::string render_lockfile(const std::vector<KernelLock>& locks) {
  nlohmann::ordered_json array = nlohmann::ordered_json::array();
  for (const auto& lock : locks) {
    nlohmann::ordered_json entry;
    if (lock.structured()) {
      nlohmann::ordered_json dependency;
      dependency["repo-id"] = lock.repo_id;
      if (lock.version) {
        dependency["version"] = *lock.version;
      } else {
        dependency["revision"] = *lock.revision;
      }
      entry["dependency"] = dependency;
      entry["lock"] = {{"commit", lock.sha}};
    } else {
      entry["repo_id"] = lock.repo_id;
      entry["sha"] = lock.sha;
      nlohmann::ordered_json variants = nlohmann::ordered_json::object();
      for (const auto& [name, v] : lock.variants) {
        variants[name] = {{"hash", v.hash}, {"hash_type", v.hash_type}};
      }
      entry["variants"] = variants;
    }
    array.push_back(entry);
  }
  return array.dump(2);
}

util::Result<std::vector<KernelLock>> parse_lockfile(const std::string& text) {
  auto invalid = [](std::string message) {
    return util::Error(util::ErrorKind::config, std::move(message))
        .with_hint("kernels.lock is written by `kernels lock <project>`: run it again rather than editing the file");
  };
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_array()) {
    return invalid("kernels.lock must be a JSON array");
  }
  std::vector<KernelLock> out;
  for (const auto& entry : json) {
    if (!entry.is_object()) return invalid("kernels.lock entries must be objects");
    KernelLock lock;
    if (entry.contains("dependency")) {
      const auto& dep = entry["dependency"];
      const auto& lk = entry.value("lock", nlohmann::json::object());
      if (!dep.is_object() || !dep.contains("repo-id") || !dep["repo-id"].is_string() || !lk.is_object() ||
          !lk.contains("commit") || !lk["commit"].is_string()) {
        return invalid("Invalid kernels.lock entry: " + entry.dump());
      }
      lock.repo_id = dep["repo-id"].get<std::string>();
      lock.sha = lk["commit"].get<std::string>();
      if (auto valid = check_kernel_request(lock.repo_id, lock.sha); !valid) {
        return valid.error().context("Refusing an entry of kernels.lock");
      }
      const bool has_version = dep.contains("version"), has_revision = dep.contains("revision");
      if (has_version == has_revision) {
        return invalid("Invalid kernels.lock entry (it needs exactly one of `version` and `revision`): " +
                       entry.dump());
      }
      if (has_version && dep["version"].is_number_integer()) {
        lock.version = dep["version"].get<long long>();
      } else if (has_revision && dep["revision"].is_string()) {
        lock.revision = dep["revision"].get<std::string>();
      } else {
        return invalid("Invalid kernels.lock entry: " + entry.dump());
      }
      for (const auto& seen : out) {
        if (seen.repo_id == lock.repo_id && seen.version == lock.version && seen.revision == lock.revision) {
          return invalid("Duplicate kernels.lock entry for kernel `" + lock.repo_id + "` (" +
                         (lock.version ? "version " + std::to_string(*lock.version) : "revision " + *lock.revision) +
                         ")");
        }
      }
    } else {
      if (!entry.contains("repo_id") || !entry["repo_id"].is_string() || !entry.contains("sha") ||
          !entry["sha"].is_string()) {
        return invalid("Invalid kernels.lock entry: " + entry.dump());
      }
      lock.repo_id = entry["repo_id"].get<std::string>();
      lock.sha = entry["sha"].get<std::string>();
      if (entry.contains("variants") && entry["variants"].is_object()) {
        for (const auto& [name, v] : entry["variants"].items()) {
          if (!v.is_object()) continue;
          lock.variants[name] = VariantLock{v.value("hash", ""), v.value("hash_type", "git_lfs_concat")};
        }
      }
    }
    // A lockfile may come from anywhere (a dependency's distribution): its names become URLs
    // and cache paths, so they pass the Hub's rules here, before anyone uses them.
    if (auto valid = check_kernel_request(lock.repo_id, lock.sha); !valid) {
      return valid.error().context("Refusing an entry of kernels.lock");
    }
    out.push_back(std::move(lock));
  }
  return out;
}

}  // namespace kb::loader
