// `kernel-hub migrate`'s copy (migrate.h): blobs through a staging file in chunks (a blob may be
// larger than memory), then records.
#include "hub/storage/migrate.h"

#include <fstream>
#include <set>
#include <system_error>

namespace kb::hub::storage {
namespace {

constexpr uint64_t kChunk = uint64_t{8} << 20;

util::Error blob_error(const std::string& key, const util::Error& cause) {
  return cause.context("Cannot copy the blob `" + key + "`");
}

// Writes the source blob to a new file in the target's staging folder, then hands it to put_file.
util::Status copy_blob(const BlobStore& from, BlobStore& to, const std::string& key, uint64_t size) {
  std::error_code ec;
  std::filesystem::create_directories(to.staging_dir(), ec);
  auto staged = to.staging_dir() / (".migrate-" + std::to_string(std::hash<std::string>{}(key)));
  {
    std::ofstream out(staged, std::ios::binary | std::ios::trunc);
    if (!out) {
      return util::Error(util::ErrorKind::io, "Cannot write the staging file `" + staged.string() + "`");
    }
    for (uint64_t offset = 0; offset < size; offset += kChunk) {
      auto bytes = from.read(key, offset, std::min(kChunk, size - offset));
      if (!bytes) return std::move(bytes).error();
      if (bytes->size() != std::min(kChunk, size - offset)) {
        return util::Error(util::ErrorKind::integrity, "The source returned " + std::to_string(bytes->size()) +
                                                           " bytes at offset " + std::to_string(offset) +
                                                           " of a blob of " + std::to_string(size));
      }
      out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
    }
    out.flush();
    if (!out) return util::Error(util::ErrorKind::io, "Cannot write the staging file `" + staged.string() + "`");
  }
  auto stored = to.put_file(key, staged);
  std::filesystem::remove(staged, ec);
  return stored;
}

}  // namespace

util::Result<MigrationCounts> migrate(const Backend& from, Backend& to, const MigrationProgress& progress) {
  MigrationCounts counts;
  // Only the blobs' own folders: in the directory back end records live under the same root, and
  // a walk of everything would copy record files (usage ledgers, which have no '.') as blobs too.
  auto copy = [&](const std::string& key) -> util::Status {
    auto size = from.blobs->size(key);
    if (!size) return blob_error(key, size.error());
    if (!*size) return {};  // removed since the walk listed it
    ++counts.blobs;
    auto there = to.blobs->size(key);
    if (!there) return blob_error(key, there.error());
    if (*there != *size) {
      auto copied = copy_blob(*from.blobs, *to.blobs, key, **size);
      if (!copied) return blob_error(key, copied.error());
      ++counts.blobs_copied;
      counts.blob_bytes_copied += **size;
    }
    if (progress) progress(counts, key);
    return {};
  };
  for (const char* prefix : {"objects/", "xet/xorbs/"}) {
    auto walked_blobs = from.blobs->walk(prefix, copy);
    if (!walked_blobs) return std::move(walked_blobs).error().context("Cannot copy the blobs of " + from.description);
  }

  std::set<std::string> source_records;
  auto walked_records = from.records->walk("", [&](const std::string& path) -> util::Status {
    auto data = from.records->read(path);
    if (!data) return data.error().context("Cannot read the record `" + path + "`");
    if (!*data) return {};  // removed since the walk listed it
    ++counts.records;
    source_records.insert(path);
    auto there = to.records->read(path);
    if (!there) return there.error().context("Cannot read the record `" + path + "` of the target");
    if (!*there || **there != **data) {
      auto written = to.records->write(path, **data);
      if (!written) return std::move(written).error().context("Cannot write the record `" + path + "`");
      ++counts.records_copied;
      counts.record_bytes_copied += (*data)->size();
    }
    if (progress) progress(counts, path);
    return {};
  });
  if (!walked_records) {
    return std::move(walked_records).error().context("Cannot copy the records of " + from.description);
  }
  auto walked_target = to.records->walk("", [&](const std::string& path) -> util::Status {
    if (!source_records.count(path)) ++counts.target_only_records;
    return {};
  });
  if (!walked_target) return std::move(walked_target).error().context("Cannot list the records of " + to.description);
  return counts;
}

}  // namespace kb::hub::storage
