// The errors of the Hub's storage, as util::Error values: `status` is the HTTP status the server
// answers with and `code` the Hub error code it sends as X-Error-Code (empty where the Hub sends
// none), so the server replies from the fields (reply_error in server/http_support.h) and callers
// decide on status/code, never on the message. The kind is the nearest util::ErrorKind (a conflict
// is `invalid` for the repository's current state); `status` tells 409 from 412 and from 400.
#pragma once

#include <string>

#include "util/result.h"

namespace kb::hub::storage {

util::Error repo_not_found();                           // not_found, 404, RepoNotFound, "Repository not found"
util::Error revision_not_found(std::string message);    // not_found, 404, RevisionNotFound
util::Error entry_not_found(std::string message);       // not_found, 404, EntryNotFound
util::Error discussion_not_found(std::string message);  // not_found, 404, no code
util::Error conflict(std::string message);              // invalid, 409: exists already
util::Error stale_parent(std::string message);          // invalid, 412: the parent commit is no longer the head
util::Error invalid_request(std::string message);       // invalid, 400
util::Error forbidden(std::string message);             // permission, 403
util::Error storage_failure(std::string message);       // io, 500: the server's own files
util::Error storage_failure(util::Error cause);         // io, its status or 500: a record store's error, chain kept
util::Error quota_exceeded(std::string message);        // invalid, 413: beyond the user's storage quota
util::Error rate_limited(std::string message);          // invalid, 429: too many posts this hour

}  // namespace kb::hub::storage
