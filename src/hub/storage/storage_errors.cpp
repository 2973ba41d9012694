// The storage errors with the HTTP status and Hub error code of each (storage_errors.h).
#include "hub/storage/storage_errors.h"

#include <utility>

#include "hub/protocol/error_codes.h"

namespace kb::hub::storage {
namespace {

util::Error make(util::ErrorKind kind, int status, const char* code, std::string message) {
  util::Error error(kind, std::move(message));
  error.status = status;
  error.code = code;
  return error;
}

}  // namespace

util::Error repo_not_found() {
  return make(util::ErrorKind::not_found, 404, protocol::error_code::kRepoNotFound, "Repository not found");
}
util::Error revision_not_found(std::string message) {
  return make(util::ErrorKind::not_found, 404, protocol::error_code::kRevisionNotFound, std::move(message));
}
util::Error entry_not_found(std::string message) {
  return make(util::ErrorKind::not_found, 404, protocol::error_code::kEntryNotFound, std::move(message));
}
util::Error discussion_not_found(std::string message) {
  return make(util::ErrorKind::not_found, 404, "", std::move(message));
}
util::Error conflict(std::string message) { return make(util::ErrorKind::invalid, 409, "", std::move(message)); }
util::Error stale_parent(std::string message) { return make(util::ErrorKind::invalid, 412, "", std::move(message)); }
util::Error invalid_request(std::string message) { return make(util::ErrorKind::invalid, 400, "", std::move(message)); }
util::Error forbidden(std::string message) { return make(util::ErrorKind::permission, 403, "", std::move(message)); }
util::Error storage_failure(std::string message) { return make(util::ErrorKind::io, 500, "", std::move(message)); }
util::Error storage_failure(util::Error cause) {
  cause.kind = util::ErrorKind::io;
  if (cause.status == 0) cause.status = 500;
  cause.code.clear();
  return cause;
}
util::Error quota_exceeded(std::string message) { return make(util::ErrorKind::invalid, 413, "", std::move(message)); }
util::Error rate_limited(std::string message) { return make(util::ErrorKind::invalid, 429, "", std::move(message)); }

}  // namespace kb::hub::storage
