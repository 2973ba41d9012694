// Reading metadata.json (docs/build-output.md): required keys, types, the kernel-name rule,
// `digest` and `provenance` validation (with the `sha` alias of `commit`).
#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "metadata/metadata.h"
#include "config/kernel_name.h"
#include "config/version.h"
#include "util/fs.h"
#include "util/hash.h"

namespace kb::metadata {

using nlohmann::json;
using util::Error;
using util::ErrorKind;
using util::Result;

namespace {

Error invalid(const std::string& message) { return Error(ErrorKind::config, message); }

Result<std::string> required_string(const json& object, const char* key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end()) return invalid("missing field `" + std::string(key) + "`" + where);
  if (!it->is_string()) return invalid("field `" + std::string(key) + "`" + where + " must be a string");
  return it->get<std::string>();
}

Result<std::optional<std::string>> optional_string(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::optional<std::string>{};
  if (!it->is_string()) return invalid("field `" + std::string(key) + "` must be a string");
  return std::optional<std::string>(it->get<std::string>());
}

Result<std::vector<std::string>> string_list(const json& value, const char* key) {
  if (!value.is_array()) return invalid("field `" + std::string(key) + "` must be a list of strings");
  std::vector<std::string> out;
  for (const auto& item : value) {
    if (!item.is_string()) return invalid("field `" + std::string(key) + "` must be a list of strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

Result<std::vector<KernelDependency>> kernel_depends(const json& value) {
  if (!value.is_array()) return invalid("field `kernel-depends` must be a list");
  std::vector<KernelDependency> out;
  for (const auto& item : value) {
    if (!item.is_object()) return invalid("`kernel-depends` entries must be objects");
    KernelDependency dep;
    KB_TRY_ASSIGN(auto repo, required_string(item, "repo-id", " in `kernel-depends`"));
    dep.repo_id = repo;
    auto v = item.find("version");
    auto r = item.find("revision");
    if (v != item.end() && r != item.end()) return invalid("`version` and `revision` are mutually exclusive");
    if (v == item.end() && r == item.end()) return invalid("either `version` or `revision` must be specified");
    if (v != item.end()) {
      if (!v->is_number_integer()) return invalid("`version` in `kernel-depends` must be an integer");
      dep.version = v->get<int64_t>();
    } else {
      if (!r->is_string()) return invalid("`revision` in `kernel-depends` must be a string");
      dep.revision = r->get<std::string>();
    }
    out.push_back(std::move(dep));
  }
  return out;
}

Result<Digest> parse_digest(const json& value) {
  if (!value.is_object()) return invalid("field `digest` must be an object");
  Digest digest;
  KB_TRY_ASSIGN(auto algorithm, required_string(value, "algorithm", " in `digest`"));
  if (algorithm == "sha256") {
    digest.algorithm = DigestAlgorithm::sha256;
  } else if (algorithm == "sha512") {
    digest.algorithm = DigestAlgorithm::sha512;
  } else {
    return invalid("invalid digest algorithm `" + algorithm + "`, expected `sha256` or `sha512`");
  }
  auto files = value.find("files");
  if (files == value.end()) return invalid("missing field `files` in `digest`");
  if (!files->is_object()) return invalid("field `files` in `digest` must be an object");
  for (const auto& [path, hash] : files->items()) {
    if (!hash.is_string()) return invalid("digest of `" + path + "` must be a string");
    if (!util::base64_decode(hash.get<std::string>())) return invalid("digest of `" + path + "` is not valid base64");
    digest.files[path] = hash.get<std::string>();
  }
  return digest;
}

// {"commit"|"sha": oid, "dirty": bool} — both or neither (`allow_absent`) of the two keys.
Result<std::optional<GitState>> parse_git_state(const json& object, const std::string& where, bool allow_absent) {
  auto commit = object.find("commit");
  if (commit == object.end()) commit = object.find("sha");
  auto dirty = object.find("dirty");
  if (commit == object.end() && dirty == object.end()) {
    if (allow_absent) return std::optional<GitState>{};
    return invalid("missing field `commit` in `" + where + "`");
  }
  if (commit == object.end()) return invalid("`dirty` without `commit` in `" + where + "`");
  if (dirty == object.end()) return invalid("`commit` without `dirty` in `" + where + "`");
  if (!commit->is_string() || !is_valid_oid(commit->get<std::string>())) {
    return invalid("invalid commit id in `" + where + "`: expected 40 or 64 hex digits");
  }
  if (!dirty->is_boolean()) return invalid("field `dirty` in `" + where + "` must be a boolean");
  GitState state;
  state.commit = commit->get<std::string>();
  std::transform(state.commit.begin(), state.commit.end(), state.commit.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  state.dirty = dirty->get<bool>();
  return std::optional<GitState>(std::move(state));
}

Result<Provenance> parse_provenance(const json& value) {
  if (!value.is_object()) return invalid("field `provenance` must be an object");
  Provenance provenance;
  if (auto builder = value.find("kernel-builder"); builder != value.end()) {
    if (!builder->is_object()) return invalid("field `provenance.kernel-builder` must be an object");
    BuilderProvenance b;
    KB_TRY_ASSIGN(auto version, required_string(*builder, "version", " in `provenance.kernel-builder`"));
    b.version = version;
    KB_TRY_ASSIGN(auto git, parse_git_state(*builder, "provenance.kernel-builder", true));
    b.git = git;
    provenance.kernel_builder = std::move(b);
  }
  if (auto kernel = value.find("kernel"); kernel != value.end()) {
    if (!kernel->is_object()) return invalid("field `provenance.kernel` must be an object");
    KB_TRY_ASSIGN(auto git, parse_git_state(*kernel, "provenance.kernel", false));
    provenance.kernel = git;
  }
  return provenance;
}

Result<Metadata> parse_object(const json& root) {
  if (!root.is_object()) return invalid("metadata must be a JSON object");
  Metadata m;
  KB_TRY_ASSIGN(auto name, required_string(root, "name", ""));
  if (auto valid = config::validate_kernel_name(name); !valid) return std::move(valid).error();
  m.name = name;
  KB_TRY_ASSIGN(auto id, required_string(root, "id", ""));
  m.id = id;
  auto version = root.find("version");
  if (version == root.end()) return invalid("missing field `version`");
  if (!version->is_number_integer()) return invalid("field `version` must be an integer");
  m.version = version->get<int64_t>();
  KB_TRY_ASSIGN(auto minver, optional_string(root, "kernels-minver"));
  if (minver) {
    if (auto parsed = config::Version::parse(*minver); !parsed) {
      return invalid("field `kernels-minver` must be a dotted version such as `0.18.0`, not `" + *minver + "`");
    }
  }
  m.kernels_minver = minver;
  KB_TRY_ASSIGN(auto license, required_string(root, "license", ""));
  m.license = license;
  KB_TRY_ASSIGN(auto upstream, optional_string(root, "upstream"));
  m.upstream = upstream;
  KB_TRY_ASSIGN(auto source, optional_string(root, "source"));
  m.source = source;
  auto python_depends = root.find("python-depends");
  if (python_depends == root.end()) return invalid("missing field `python-depends`");
  KB_TRY_ASSIGN(auto deps, string_list(*python_depends, "python-depends"));
  m.python_depends = deps;
  if (auto kd = root.find("kernel-depends"); kd != root.end()) {
    KB_TRY_ASSIGN(auto parsed, kernel_depends(*kd));
    m.kernel_depends = parsed;
  }
  auto backend = root.find("backend");
  if (backend == root.end()) return invalid("missing field `backend`");
  if (!backend->is_object()) return invalid("field `backend` must be an object");
  KB_TRY_ASSIGN(auto type, required_string(*backend, "type", " in `backend`"));
  auto parsed_backend = config::parse_backend(type);
  if (!parsed_backend) return invalid("unknown backend `" + type + "`");
  m.backend = *parsed_backend;
  if (auto archs = backend->find("archs"); archs != backend->end() && !archs->is_null()) {
    KB_TRY_ASSIGN(auto list, string_list(*archs, "backend.archs"));
    m.archs = list;
  }
  if (auto digest = root.find("digest"); digest != root.end() && !digest->is_null()) {
    KB_TRY_ASSIGN(auto parsed, parse_digest(*digest));
    m.digest = parsed;
  }
  if (auto provenance = root.find("provenance"); provenance != root.end() && !provenance->is_null()) {
    KB_TRY_ASSIGN(auto parsed, parse_provenance(*provenance));
    m.provenance = parsed;
  }
  return m;
}

}  // namespace

bool is_valid_oid(std::string_view oid) {
  if (oid.size() != 40 && oid.size() != 64) return false;
  return std::all_of(oid.begin(), oid.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
}

Result<Metadata> parse_metadata(std::string_view text) {
  json root = json::parse(text, nullptr, false);
  if (root.is_discarded()) return invalid("metadata is not valid JSON");
  return parse_object(root);
}

Result<Metadata> read_metadata_file(const std::string& path) {
  KB_TRY_ASSIGN(auto text, util::read_file(path));
  auto parsed = parse_metadata(text);
  if (!parsed) return std::move(parsed).error().context("Failed to parse metadata: " + path);
  return parsed;
}

}  // namespace kb::metadata
