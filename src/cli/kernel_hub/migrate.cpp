// `kernel-hub migrate --from LOCATION --to LOCATION`: copy a Hub between back ends, byte for byte
// (hub/storage/migrate.h, docs/hub-scale.md). A LOCATION is a root directory, or a database URI
// and an object-store URL (two values, in either order). Progress goes to stderr, at most once a
// second, then a summary; stdout stays empty.
#include <chrono>
#include <cstdio>
#include <filesystem>

#include <unistd.h>

#include "cli/command_registry.h"
#include "hub/storage/migrate.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

struct Options {
  std::vector<std::string> from;
  std::vector<std::string> to;
  std::string scratch;
};

bool is_object_store(const std::string& value) { return value.rfind("s3://", 0) == 0; }

util::Result<hub::storage::BackendConfig> location(const std::vector<std::string>& values, const char* option,
                                                   const std::filesystem::path& scratch) {
  hub::storage::BackendConfig config;
  if (values.size() == 1 && !is_object_store(values[0]) && values[0].find("://") == std::string::npos) {
    config.root = values[0];
    return config;
  }
  for (const auto& value : values) (is_object_store(value) ? config.object_store : config.database) = value;
  if (values.size() != 2 || config.database.empty() || config.object_store.empty()) {
    return util::Error(util::ErrorKind::usage, std::string("`") + option +
                                                   "` takes a root directory, or a database URI and an object-store URL")
        .with_hint(std::string(option) + " /srv/hub, or " + option +
                   " postgresql://kb@db:5432/kernel_hub 's3://hub?endpoint=https://s3.example&region=us-east-1'");
  }
  config.root = scratch;
  config.connections = 2;
  return config;
}

std::string megabytes(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return text;
}

int run(const Options& o) {
  std::filesystem::path scratch = o.scratch;
  if (scratch.empty()) scratch = std::filesystem::temp_directory_path() / ("kernel-hub-migrate-" + std::to_string(::getpid()));
  auto from = location(o.from, "--from", scratch / "from");
  if (!from) return report_error(from.error());
  auto to = location(o.to, "--to", scratch / "to");
  if (!to) return report_error(to.error());
  auto source = hub::storage::open_backend(*from);
  if (!source) return report_error(source.error());
  auto target = hub::storage::open_backend(*to);
  if (!target) return report_error(target.error());
  std::fprintf(stderr, "Copying %s to %s\n", source->description.c_str(), target->description.c_str());

  auto last = std::chrono::steady_clock::now();
  auto progress = [&last](const hub::storage::MigrationCounts& counts, const std::string&) {
    auto now = std::chrono::steady_clock::now();
    if (now - last < std::chrono::seconds(1)) return;
    last = now;
    std::fprintf(stderr, "  %llu blobs (%llu copied, %s), %llu records (%llu copied)\n",
                 static_cast<unsigned long long>(counts.blobs), static_cast<unsigned long long>(counts.blobs_copied),
                 megabytes(counts.blob_bytes_copied).c_str(), static_cast<unsigned long long>(counts.records),
                 static_cast<unsigned long long>(counts.records_copied));
  };
  auto counts = hub::storage::migrate(*source, *target, progress);
  std::error_code ec;
  if (o.scratch.empty()) std::filesystem::remove_all(scratch, ec);
  if (!counts) return report_error(counts.error().context("Cannot migrate " + source->description));
  std::fprintf(stderr, "Copied %llu of %llu blobs (%s) and %llu of %llu records; the rest were already there.\n",
               static_cast<unsigned long long>(counts->blobs_copied), static_cast<unsigned long long>(counts->blobs),
               megabytes(counts->blob_bytes_copied).c_str(), static_cast<unsigned long long>(counts->records_copied),
               static_cast<unsigned long long>(counts->records));
  if (counts->target_only_records) {
    std::fprintf(stderr, "warning: the target has %llu records the source lacks; they were left as they are\n",
                 static_cast<unsigned long long>(counts->target_only_records));
  }
  return 0;
}

Action setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--from", o->from,
                 "The Hub to copy: its root directory, or its database URI and object-store URL; it should "
                 "not be serving")
      ->required()
      ->expected(1, 2)
      ->type_name("LOCATION");
  app.add_option("--to", o->to,
                 "Where to copy it, in the same form; what is there already and unchanged is kept, so an "
                 "interrupted migration is finished by running it again")
      ->required()
      ->expected(1, 2)
      ->type_name("LOCATION");
  app.add_option("--scratch", o->scratch,
                 "Local folder for staging blobs on their way to an object store (default: a temporary folder)")
      ->type_name("DIR");
  app.footer("Object-store credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (docs/hub-scale.md).");
  return [o] { return run(*o); };
}

const RegisterCommand registration("kernel-hub",
                                   {"migrate", "Copy a Hub between a directory and PostgreSQL + an object store", setup,
                                    false, 40});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
