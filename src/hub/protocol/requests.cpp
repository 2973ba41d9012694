// Typed parsing of the server's request bodies (see requests.h).
#include "hub/protocol/requests.h"

#include <nlohmann/json.hpp>

#include "hub/protocol/names.h"
#include "util/hash.h"
#include "util/strings.h"

namespace kb::hub::protocol {

util::Error field_error(const std::string& field, const std::string& expected) {
  return util::Error(util::ErrorKind::invalid, field + ": " + expected);
}

namespace {

using nlohmann::json;

struct TooDeep {};

// Parses one JSON document, refusing nesting deeper than kMaxJsonDepth before it is built.
util::Result<json> parse_json(std::string_view text, const std::string& what) {
  try {
    json doc = json::parse(
        text.begin(), text.end(),
        [](int depth, json::parse_event_t, json&) {
          if (depth > kMaxJsonDepth) throw TooDeep{};
          return true;
        },
        true);
    return doc;
  } catch (const TooDeep&) {
    return util::Error(util::ErrorKind::invalid, what + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  } catch (const json::exception&) {
    return util::Error(util::ErrorKind::invalid, what + ": not valid JSON");
  }
}

std::string join(const std::string& prefix, const std::string& key) { return prefix.empty() ? key : prefix + "." + key; }

// A member that must be a string when present; nullopt when absent or null.
util::Result<std::optional<std::string>> optional_string(const json& object, const std::string& key,
                                                         const std::string& prefix) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) return field_error(join(prefix, key), "expected a string");
  return std::optional<std::string>(it->get<std::string>());
}

util::Result<std::string> required_string(const json& object, const std::string& key, const std::string& prefix) {
  auto value = optional_string(object, key, prefix);
  if (!value) return std::move(value).error();
  if (!*value) return field_error(join(prefix, key), "required string is missing");
  return **value;
}

util::Result<bool> optional_bool(const json& object, const std::string& key, const std::string& prefix) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return false;
  if (!it->is_boolean()) return field_error(join(prefix, key), "expected a boolean");
  return it->get<bool>();
}

util::Result<uint64_t> required_size(const json& object, const std::string& key, const std::string& prefix) {
  auto it = object.find(key);
  const std::string expected = "expected a non-negative integer below 2^63";
  if (it == object.end() || it->is_null()) return field_error(join(prefix, key), "required integer is missing");
  if (it->is_number_unsigned()) {
    auto value = it->get<uint64_t>();
    if (value > kMaxDeclaredSize) return field_error(join(prefix, key), expected);
    return value;
  }
  if (it->is_number_integer()) {
    auto value = it->get<int64_t>();
    if (value < 0) return field_error(join(prefix, key), expected);
    return static_cast<uint64_t>(value);
  }
  return field_error(join(prefix, key), expected);
}

util::Result<std::string> required_sha256(const json& object, const std::string& key, const std::string& prefix) {
  auto it = object.find(key);
  const bool hex = it != object.end() && it->is_string() && it->get_ref<const std::string&>().size() == 64 &&
                   it->get_ref<const std::string&>().find_first_not_of("0123456789abcdef") == std::string::npos;
  if (!hex) return field_error(join(prefix, key), "expected 64 lowercase hex digits (a sha256)");
  return it->get<std::string>();
}

util::Result<json> object_body(std::string_view body, const std::string& what, bool empty_is_object) {
  if (empty_is_object && util::trim(std::string(body)).empty()) return json::object();
  auto doc = parse_json(body, what);
  if (!doc) return std::move(doc).error();
  if (!doc->is_object()) return field_error(what, "expected a JSON object");
  return std::move(*doc);
}

// Stores the value of `result` in `out`, or hands back its error.
template <class T, class U>
util::Status assign(util::Result<T> result, U& out) {
  if (!result) return std::move(result).error();
  out = std::move(*result);
  return {};
}

// Like assign, for an optional string member: `out` keeps its default when the member is absent.
util::Status assign_if_present(util::Result<std::optional<std::string>> result, std::string& out) {
  if (!result) return std::move(result).error();
  if (*result) out = std::move(**result);
  return {};
}

util::Status path_ok(const std::string& path, const std::string& field) {
  if (auto s = check_repo_path(path); !s) return field_error(field, s.error().message);
  return {};
}

}  // namespace

util::Result<CreateRepoRequest> parse_create_repo(std::string_view body) {
  auto doc = object_body(body, "body", false);
  if (!doc) return std::move(doc).error();
  CreateRepoRequest out;
  KB_TRY(assign(required_string(*doc, "name", ""), out.name));
  KB_TRY(assign(optional_string(*doc, "organization", ""), out.organization));
  KB_TRY(assign_if_present(optional_string(*doc, "type", ""), out.type));
  bool is_private = false;
  KB_TRY(assign(optional_bool(*doc, "private", ""), is_private));
  std::optional<std::string> visibility;
  KB_TRY(assign(optional_string(*doc, "visibility", ""), visibility));
  if (visibility && *visibility != "private" && *visibility != "public") {
    return field_error("visibility", "expected \"public\" or \"private\"");
  }
  out.is_private = is_private || visibility == "private";
  return out;
}

util::Result<CreateBranchRequest> parse_create_branch(std::string_view body) {
  auto doc = object_body(body, "body", true);
  if (!doc) return std::move(doc).error();
  CreateBranchRequest out;
  KB_TRY(assign(optional_string(*doc, "startingPoint", ""), out.starting_point));
  return out;
}

util::Result<std::vector<PreuploadFile>> parse_preupload(std::string_view body) {
  auto doc = object_body(body, "body", false);
  if (!doc) return std::move(doc).error();
  auto files = doc->find("files");
  if (files == doc->end() || !files->is_array()) return field_error("files", "expected an array");
  for (const char* key : {"gitAttributes", "gitIgnore"}) {
    if (auto text = optional_string(*doc, key, ""); !text) return std::move(text).error();
  }
  std::vector<PreuploadFile> out;
  for (size_t i = 0; i < files->size(); ++i) {
    const json& file = (*files)[i];
    std::string prefix = "files[" + std::to_string(i) + "]";
    if (!file.is_object()) return field_error(prefix, "expected an object");
    PreuploadFile entry;
    KB_TRY(assign(required_string(file, "path", prefix), entry.path));
    KB_TRY(path_ok(entry.path, prefix + ".path"));
    KB_TRY(assign(required_size(file, "size", prefix), entry.size));
    std::optional<std::string> sample;
    KB_TRY(assign(optional_string(file, "sample", prefix), sample));
    if (sample) {
      auto decoded = util::base64_decode(*sample);
      if (!decoded) return field_error(prefix + ".sample", "expected base64");
      entry.sample = std::move(*decoded);
    }
    out.push_back(std::move(entry));
  }
  return out;
}

util::Result<std::vector<LfsObject>> parse_lfs_batch(std::string_view body) {
  auto doc = object_body(body, "body", false);
  if (!doc) return std::move(doc).error();
  auto operation = required_string(*doc, "operation", "");
  if (!operation) return std::move(operation).error();
  if (*operation != "upload") return field_error("operation", "only \"upload\" is supported");
  if (auto transfers = doc->find("transfers"); transfers != doc->end() && !transfers->is_null()) {
    if (!transfers->is_array()) return field_error("transfers", "expected an array of strings");
    for (size_t i = 0; i < transfers->size(); ++i) {
      if (!(*transfers)[i].is_string()) return field_error("transfers[" + std::to_string(i) + "]", "expected a string");
    }
  }
  if (auto ref = doc->find("ref"); ref != doc->end() && !ref->is_null()) {
    if (!ref->is_object()) return field_error("ref", "expected an object");
    if (auto name = optional_string(*ref, "name", "ref"); !name) return std::move(name).error();
  }
  auto algo = optional_string(*doc, "hash_algo", "");
  if (!algo) return std::move(algo).error();
  if (*algo && **algo != "sha256") return field_error("hash_algo", "only \"sha256\" is supported");
  auto objects = doc->find("objects");
  if (objects == doc->end() || !objects->is_array()) return field_error("objects", "expected an array");
  std::vector<LfsObject> out;
  for (size_t i = 0; i < objects->size(); ++i) {
    const json& object = (*objects)[i];
    std::string prefix = "objects[" + std::to_string(i) + "]";
    if (!object.is_object()) return field_error(prefix, "expected an object");
    LfsObject entry;
    KB_TRY(assign(required_sha256(object, "oid", prefix), entry.oid));
    KB_TRY(assign(required_size(object, "size", prefix), entry.size));
    out.push_back(std::move(entry));
  }
  return out;
}

util::Result<CommitPayload> parse_commit_payload(std::string_view body) {
  CommitPayload out;
  size_t line_number = 0;
  bool header_seen = false;
  for (const auto& line : util::split(std::string(body), '\n')) {
    ++line_number;
    if (util::trim(line).empty()) continue;
    std::string where = "line " + std::to_string(line_number);
    auto item = object_body(line, where, false);
    if (!item) return std::move(item).error();
    auto key = required_string(*item, "key", where);
    if (!key) return std::move(key).error();
    where += " (" + *key + ")";
    auto value_it = item->find("value");
    if (value_it == item->end() || !value_it->is_object()) return field_error(where + ": value", "expected an object");
    const json& value = *value_it;
    if (*key == "header") {
      if (header_seen) return field_error(where, "a second header");
      header_seen = true;
      auto summary = optional_string(value, "summary", "value");
      if (!summary) return field_error(where, std::move(summary).error().message);
      if (*summary) out.summary = **summary;
      auto description = optional_string(value, "description", "value");
      if (!description) return field_error(where, std::move(description).error().message);
      if (*description) out.description = **description;
      auto parent = optional_string(value, "parentCommit", "value");
      if (!parent) return field_error(where, std::move(parent).error().message);
      out.parent_commit = *parent;
      continue;
    }
    CommitOp op;
    if (*key == "file") {
      op.kind = CommitOpKind::file;
    } else if (*key == "lfsFile") {
      op.kind = CommitOpKind::lfs_file;
    } else if (*key == "deletedFile") {
      op.kind = CommitOpKind::delete_file;
    } else if (*key == "deletedFolder") {
      op.kind = CommitOpKind::delete_folder;
    } else {
      return field_error(where + ": key", "unknown commit operation");
    }
    auto path = required_string(value, "path", "value");
    if (!path) return field_error(where, std::move(path).error().message);
    op.path = *path;
    if (auto s = check_repo_path(op.kind == CommitOpKind::delete_folder && !op.path.empty() && op.path.back() == '/'
                                     ? op.path.substr(0, op.path.size() - 1)
                                     : op.path);
        !s) {
      return field_error(where + ": value.path", s.error().message);
    }
    where = "line " + std::to_string(line_number) + " (" + *key + " `" + op.path + "`)";
    if (op.kind == CommitOpKind::delete_folder && !op.path.empty() && op.path.back() == '/') op.path.pop_back();
    if (op.kind == CommitOpKind::file) {
      auto content = required_string(value, "content", "value");
      if (!content) return field_error(where, std::move(content).error().message);
      auto encoding = optional_string(value, "encoding", "value");
      if (!encoding) return field_error(where, std::move(encoding).error().message);
      if (*encoding && **encoding != "base64") return field_error(where + ": value.encoding", "only \"base64\" is supported");
      auto decoded = util::base64_decode(*content);
      if (!decoded) return field_error(where + ": value.content", "expected base64");
      op.content = std::move(*decoded);
    } else if (op.kind == CommitOpKind::lfs_file) {
      auto oid = required_sha256(value, "oid", "value");
      if (!oid) return field_error(where, std::move(oid).error().message);
      op.oid = *oid;
      auto size = required_size(value, "size", "value");
      if (!size) return field_error(where, std::move(size).error().message);
      op.size = *size;
      auto algo = optional_string(value, "algo", "value");
      if (!algo) return field_error(where, std::move(algo).error().message);
      if (*algo && **algo != "sha256") return field_error(where + ": value.algo", "only \"sha256\" is supported");
    }
    out.operations.push_back(std::move(op));
  }
  return out;
}

util::Result<std::optional<std::string>> parse_lfs_batch_ref(std::string_view body) {
  auto doc = object_body(body, "body", false);
  if (!doc) return std::move(doc).error();
  auto ref = doc->find("ref");
  if (ref == doc->end() || ref->is_null()) return std::optional<std::string>();
  if (!ref->is_object()) return field_error("ref", "expected an object");
  auto name = required_string(*ref, "name", "ref");
  if (!name) return std::move(name).error();
  if (auto s = check_revision(*name); !s) return field_error("ref.name", s.error().message);
  return std::optional<std::string>(*name);
}

util::Result<DeleteRepoRequest> parse_delete_repo(std::string_view body) {
  auto doc = object_body(body, "body", false);
  if (!doc) return std::move(doc).error();
  DeleteRepoRequest out;
  KB_TRY(assign(required_string(*doc, "name", ""), out.name));
  KB_TRY(assign(optional_string(*doc, "organization", ""), out.organization));
  KB_TRY(assign_if_present(optional_string(*doc, "type", ""), out.type));
  return out;
}

util::Result<CreateTagRequest> parse_create_tag(std::string_view body) {
  auto doc = object_body(body, "body", false);
  if (!doc) return std::move(doc).error();
  CreateTagRequest out;
  KB_TRY(assign(required_string(*doc, "tag", ""), out.tag));
  if (auto s = check_ref_name(out.tag); !s) return field_error("tag", s.error().message);
  KB_TRY(assign_if_present(optional_string(*doc, "message", ""), out.message));
  return out;
}

util::Result<RepoSettingsRequest> parse_repo_settings(std::string_view body) {
  auto doc = object_body(body, "body", false);
  if (!doc) return std::move(doc).error();
  RepoSettingsRequest out;
  if (auto it = doc->find("private"); it != doc->end() && !it->is_null()) {
    if (!it->is_boolean()) return field_error("private", "expected a boolean");
    out.is_private = it->get<bool>();
  }
  std::optional<std::string> visibility;
  KB_TRY(assign(optional_string(*doc, "visibility", ""), visibility));
  if (visibility) {
    if (*visibility != "private" && *visibility != "public") {
      return field_error("visibility", "expected \"public\" or \"private\"");
    }
    out.is_private = *visibility == "private";
  }
  if (auto it = doc->find("gated"); it != doc->end() && !it->is_null()) {
    if (it->is_boolean() && !it->get<bool>()) {
      out.gated = "";
    } else if (it->is_string() && (it->get<std::string>() == "auto" || it->get<std::string>() == "manual")) {
      out.gated = it->get<std::string>();
    } else {
      return field_error("gated", "expected \"auto\", \"manual\" or false");
    }
  }
  return out;
}

util::Result<CreateDiscussionRequest> parse_create_discussion(std::string_view body) {
  auto doc = object_body(body, "body", false);
  if (!doc) return std::move(doc).error();
  CreateDiscussionRequest out;
  KB_TRY(assign(required_string(*doc, "title", ""), out.title));
  out.title = util::trim(out.title);
  if (out.title.empty()) return field_error("title", "must not be empty");
  KB_TRY(assign_if_present(optional_string(*doc, "description", ""), out.description));
  KB_TRY(assign(optional_bool(*doc, "pullRequest", ""), out.pull_request));
  return out;
}

util::Result<ValidateYamlRequest> parse_validate_yaml(std::string_view body) {
  auto doc = object_body(body, "body", false);
  if (!doc) return std::move(doc).error();
  ValidateYamlRequest out;
  KB_TRY(assign(required_string(*doc, "content", ""), out.content));
  KB_TRY(assign_if_present(optional_string(*doc, "repoType", ""), out.repo_type));
  return out;
}

util::Result<PathsInfoRequest> parse_paths_info(std::string_view body) {
  auto doc = object_body(body, "body", false);
  if (!doc) return std::move(doc).error();
  PathsInfoRequest out;
  auto paths = doc->find("paths");
  if (paths == doc->end() || !paths->is_array()) return field_error("paths", "expected an array of strings");
  if (paths->size() > kMaxPathsInfoPaths) {
    return field_error("paths", "at most " + std::to_string(kMaxPathsInfoPaths) + " paths per request");
  }
  for (size_t i = 0; i < paths->size(); ++i) {
    const auto& path = (*paths)[i];
    if (!path.is_string()) return field_error("paths[" + std::to_string(i) + "]", "expected a string");
    out.paths.push_back(path.get<std::string>());
  }
  KB_TRY(assign(optional_bool(*doc, "expand", ""), out.expand));
  return out;
}

}  // namespace kb::hub::protocol
