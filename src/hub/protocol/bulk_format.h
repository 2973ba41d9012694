// The bulk download format of kernel-hub (docs/hub-bulk.md): a whole directory of a revision in
// one response, so loading an N-file kernel costs one request instead of N. The stream is a
// sequence of records, each a one-line JSON header {"path","size","sha256"} followed by exactly
// `size` raw bytes, and ends with a trailer line {"end": true, "files": <count>} so a truncated
// stream is always detected.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kb::hub::protocol {

inline constexpr int kBulkFormatVersion = 1;
inline constexpr const char* kBulkContentType = "application/vnd.kernel-hub.bulk";
inline constexpr const char* kBulkHeader = "X-Kernel-Hub-Bulk";

struct BulkEntry {
  std::string path;     // path in the repository
  uint64_t size = 0;
  std::string sha256;   // hex digest of the content
  std::filesystem::path source;  // server side: where the bytes are read from
  // Server side, instead of `source`: writes exactly `size` bytes of content (a file stored in
  // another form, e.g. Xet xorbs); false when it or `write` failed.
  std::function<bool(const std::function<bool(const char*, size_t)>& write)> produce;
};

// Writes the stream for `entries`; `write` returns false to abort (client went away).
bool write_bulk_stream(const std::vector<BulkEntry>& entries,
                       const std::function<bool(const char*, size_t)>& write);

// Incremental reader: feed() the response body in chunks of any size. Each file is written to
// `destination_for(path)` (created with parent directories) and its digest verified.
class BulkReader {
 public:
  using DestinationFor = std::function<util::Result<std::filesystem::path>(const std::string& repo_path)>;
  explicit BulkReader(DestinationFor destination_for);
  ~BulkReader();
  BulkReader(const BulkReader&) = delete;
  BulkReader& operator=(const BulkReader&) = delete;

  util::Status feed(std::string_view chunk);
  // Fails unless the trailer was seen and every announced file was complete.
  util::Status finish() const;
  const std::vector<BulkEntry>& files() const { return files_; }

 private:
  util::Status start_record(const std::string& header_line);
  util::Status finish_record();

  struct Current;
  DestinationFor destination_for_;
  std::string line_;
  std::unique_ptr<Current> current_;
  std::vector<BulkEntry> files_;
  bool ended_ = false;
  util::Error failed_;
  bool has_failed_ = false;
};

}  // namespace kb::hub::protocol
