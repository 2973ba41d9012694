// Copying a Hub from one back end to another (`kernel-hub migrate`, docs/hub-scale.md): every blob,
// then every record, byte for byte, under the same names. Blobs go first so that a record on the
// target never names a blob the target lacks. What the target already holds unchanged is skipped
// (a blob of the same size: blobs are content-addressed and immutable; a record with the same
// bytes), so an interrupted migration is finished by running it again, and a second run after the
// first copies nothing. Records of the target that the source lacks are left alone and counted.
// The source Hub should not be serving while it is copied (a commit landing mid-walk may be
// missed; run again once it is stopped).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "hub/storage/backend.h"

namespace kb::hub::storage {

struct MigrationCounts {
  uint64_t blobs = 0;            // blobs of the source
  uint64_t blobs_copied = 0;     // ... written to the target (the rest were there)
  uint64_t blob_bytes_copied = 0;
  uint64_t records = 0;          // records of the source
  uint64_t records_copied = 0;   // ... written to the target (the rest were there, byte for byte)
  uint64_t record_bytes_copied = 0;
  uint64_t target_only_records = 0;  // records of the target the source lacks (kept)
};

// Called after each blob and each record, with the counts so far and the name just handled
// (progress reporting is the caller's: the CLI throttles it to stderr).
using MigrationProgress = std::function<void(const MigrationCounts& counts, const std::string& name)>;

util::Result<MigrationCounts> migrate(const Backend& from, Backend& to, const MigrationProgress& progress = {});

}  // namespace kb::hub::storage
