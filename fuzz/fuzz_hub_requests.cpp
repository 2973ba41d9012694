// libFuzzer target for kernel-hub's request-body parsers (hub/protocol/requests.h), name
// validators (hub/protocol/names.h) and card metadata validation (hub/protocol/card_metadata.h,
// yaml-cpp): the first byte picks the parser, the rest is the body.
// Nothing may crash, hang or trip the sanitizers, and whatever a parser accepts must satisfy the
// invariants the handlers rely on (checked here, abort otherwise):
// - every path in an accepted body passes check_repo_path (no '..', backslash, control byte);
// - every declared size is below 2^63 and every oid is 64 lowercase hex digits;
// - a path accepted by check_repo_path has no empty/'.'/'..' component and no byte below 0x20;
// - a ref name accepted by check_ref_name is also an accepted revision;
// - an accepted tag is a valid ref name, an accepted `gated` is "", "auto" or "manual", an accepted
//   paths-info request has at most kMaxPathsInfoPaths paths, a discussion title is not empty;
// - card metadata validation reports either errors or warnings for a card, never both kinds
//   empty when the card has no metadata block.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "hub/protocol/card_metadata.h"
#include "hub/protocol/names.h"
#include "hub/protocol/requests.h"

namespace {

using namespace kb::hub::protocol;

[[noreturn]] void fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "invariant broken: %s: %.*s\n", what, static_cast<int>(detail.size()), detail.data());
  std::abort();
}

void check_path_invariants(std::string_view path) {
  if (!check_repo_path(path)) fail("accepted body holds a refused path", path);
  if (path.empty() || path.front() == '/' || path.back() == '/') fail("path with empty component", path);
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    std::string_view part = path.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (part.empty() || part == "." || part == "..") fail("path component", path);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  for (char c : path) {
    if (static_cast<unsigned char>(c) < 0x20 || c == '\\') fail("path byte", path);
  }
}

void check_oid(const std::string& oid) {
  if (oid.size() != 64 || oid.find_first_not_of("0123456789abcdef") != std::string::npos) fail("oid", oid);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 12) {
    case 0: {
      auto request = parse_create_repo(body);
      if (request && request->type.empty() && body.find("\"type\"") == std::string_view::npos) fail("type", body);
      break;
    }
    case 1:
      (void)parse_create_branch(body);
      break;
    case 2:
      if (auto files = parse_preupload(body)) {
        for (const auto& file : *files) {
          check_path_invariants(file.path);
          if (file.size > kMaxDeclaredSize) fail("size", body);
        }
      }
      break;
    case 3:
      if (auto objects = parse_lfs_batch(body)) {
        for (const auto& object : *objects) {
          check_oid(object.oid);
          if (object.size > kMaxDeclaredSize) fail("size", body);
        }
      }
      break;
    case 4:
      if (auto payload = parse_commit_payload(body)) {
        for (const auto& op : payload->operations) {
          check_path_invariants(op.path);
          if (op.kind == CommitOpKind::lfs_file) {
            check_oid(op.oid);
            if (op.size > kMaxDeclaredSize) fail("size", body);
          }
        }
      }
      break;
    case 5:
      (void)parse_delete_repo(body);
      break;
    case 6:
      if (auto tag = parse_create_tag(body); tag && !check_ref_name(tag->tag)) fail("tag", tag->tag);
      break;
    case 7:
      if (auto settings = parse_repo_settings(body); settings && settings->gated) {
        if (!settings->gated->empty() && *settings->gated != "auto" && *settings->gated != "manual") {
          fail("gated", *settings->gated);
        }
      }
      break;
    case 8:
      if (auto discussion = parse_create_discussion(body); discussion && discussion->title.empty()) fail("title", body);
      break;
    case 9:
      if (auto paths = parse_paths_info(body); paths && paths->paths.size() > kMaxPathsInfoPaths) fail("paths", body);
      (void)parse_validate_yaml(body);
      break;
    case 10: {
      auto report = validate_card_metadata(body);
      if (body.find("---") == std::string_view::npos && (report.warnings.size() != 1 || !report.errors.empty())) {
        fail("a card without a metadata block gets exactly one warning", body);
      }
      break;
    }
    default: {
      if (check_repo_path(body)) check_path_invariants(body);
      if (check_ref_name(body) && !check_revision(body)) fail("ref name that is no revision", body);
      (void)check_repo_id(body);
      (void)check_repo_folder(body);
      break;
    }
  }
  return 0;
}
