// The Hub's machine-readable error codes (the X-Error-Code header; util::Error::code on both
// sides): the server sends them, the client and the loader decide on them, never on message text.
#pragma once

namespace kb::hub::protocol::error_code {

inline constexpr const char* kRepoNotFound = "RepoNotFound";          // no such repository, or not visible to the caller
inline constexpr const char* kRevisionNotFound = "RevisionNotFound";  // no such branch, tag, pull request or commit
inline constexpr const char* kEntryNotFound = "EntryNotFound";        // no such file or folder at the revision
inline constexpr const char* kGatedRepo = "GatedRepo";                // gated and the caller was not granted access

}  // namespace kb::hub::protocol::error_code
