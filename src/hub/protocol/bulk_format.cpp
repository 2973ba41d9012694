// Bulk stream writer and incremental, verifying reader.
#include "hub/protocol/bulk_format.h"

#include <fstream>

#include <nlohmann/json.hpp>

#include "hub/protocol/names.h"
#include "util/hash.h"

namespace kb::hub::protocol {

using nlohmann::json;

namespace {
constexpr size_t kMaxHeaderLine = 64 * 1024;

}  // namespace

bool write_bulk_stream(const std::vector<BulkEntry>& entries,
                       const std::function<bool(const char*, size_t)>& write) {
  std::string buffer(256 * 1024, '\0');
  for (const auto& entry : entries) {
    std::string header = json{{"path", entry.path}, {"size", entry.size}, {"sha256", entry.sha256}}.dump() + "\n";
    if (!write(header.data(), header.size())) return false;
    if (entry.produce) {
      if (!entry.produce(write)) return false;
      continue;
    }
    std::ifstream in(entry.source, std::ios::binary);
    uint64_t left = entry.size;
    while (left > 0 && in) {
      in.read(buffer.data(), static_cast<std::streamsize>(std::min<uint64_t>(left, buffer.size())));
      auto got = static_cast<size_t>(in.gcount());
      if (got == 0 || !write(buffer.data(), got)) return false;
      left -= got;
    }
    if (left != 0) return false;  // the trailer is never written, so readers see a truncation
  }
  std::string trailer = json{{"end", true}, {"files", entries.size()}}.dump() + "\n";
  return write(trailer.data(), trailer.size());
}

struct BulkReader::Current {
  BulkEntry entry;
  uint64_t remaining = 0;
  std::ofstream out;
  util::Hasher hasher{util::HashAlgorithm::sha256};
};

BulkReader::BulkReader(DestinationFor destination_for) : destination_for_(std::move(destination_for)) {}
BulkReader::~BulkReader() = default;

util::Status BulkReader::start_record(const std::string& header_line) {
  json header = json::parse(header_line, nullptr, false);
  if (header.is_discarded() || !header.is_object()) {
    return util::Error(util::ErrorKind::integrity, "Malformed bulk record header");
  }
  if (header.value("end", false)) {
    if (header.value("files", size_t{0}) != files_.size()) {
      return util::Error(util::ErrorKind::integrity, "Bulk stream file count mismatch");
    }
    ended_ = true;
    return {};
  }
  auto current = std::make_unique<Current>();
  current->entry.path = header.value("path", "");
  current->entry.size = header.value("size", uint64_t{0});
  current->entry.sha256 = header.value("sha256", "");
  // A path we are willing to write under a destination root: the Hub's file-path rules.
  KB_TRY(check_repo_path(current->entry.path));
  auto destination = destination_for_(current->entry.path);
  if (!destination) return std::move(destination).error();
  current->entry.source = *destination;
  std::error_code ec;
  std::filesystem::create_directories(destination->parent_path(), ec);
  current->out.open(*destination, std::ios::binary | std::ios::trunc);
  if (!current->out) return util::Error(util::ErrorKind::io, "Cannot write `" + destination->string() + "`");
  current->remaining = current->entry.size;
  current_ = std::move(current);
  if (current_->remaining == 0) return finish_record();
  return {};
}

util::Status BulkReader::finish_record() {
  current_->out.close();
  std::string digest = util::to_hex(current_->hasher.finish());
  if (digest != current_->entry.sha256) {
    return util::Error(util::ErrorKind::integrity, "Digest mismatch for `" + current_->entry.path + "`");
  }
  files_.push_back(current_->entry);
  current_.reset();
  return {};
}

util::Status BulkReader::feed(std::string_view chunk) {
  if (has_failed_) return failed_;
  auto fail = [this](util::Error error) -> util::Status {
    has_failed_ = true;
    failed_ = error;
    return error;
  };
  while (!chunk.empty()) {
    if (ended_) return fail(util::Error(util::ErrorKind::integrity, "Data after the end of the bulk stream"));
    if (current_) {
      size_t take = static_cast<size_t>(std::min<uint64_t>(current_->remaining, chunk.size()));
      current_->out.write(chunk.data(), static_cast<std::streamsize>(take));
      current_->hasher.update(chunk.substr(0, take));
      current_->remaining -= take;
      chunk.remove_prefix(take);
      if (current_->remaining == 0) {
        if (auto s = finish_record(); !s) return fail(std::move(s).error());
      }
      continue;
    }
    size_t newline = chunk.find('\n');
    line_.append(chunk.substr(0, newline));
    if (line_.size() > kMaxHeaderLine) return fail(util::Error(util::ErrorKind::integrity, "Bulk header too long"));
    if (newline == std::string_view::npos) return {};
    chunk.remove_prefix(newline + 1);
    std::string header = std::move(line_);
    line_.clear();
    if (auto s = start_record(header); !s) return fail(std::move(s).error());
  }
  return {};
}

util::Status BulkReader::finish() const {
  if (has_failed_) return failed_;
  if (!ended_ || current_) return util::Error(util::ErrorKind::integrity, "Bulk stream was truncated");
  return {};
}

}  // namespace kb::hub::protocol
