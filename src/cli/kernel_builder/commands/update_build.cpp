// `kernel-builder update-build [KERNEL_DIR]`: rewrite a legacy (v4 / v3) build.toml as edition 5,
// atomically; an edition-5 file is left untouched (docs/build-toml.md).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cli/command_registry.h"
#include "cli/kernel_builder/commands/kernel_dir.h"
#include "config/migrate.h"
#include "config/reader.h"
#include "util/fs.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

util::Status update_build(const std::string& dir) {
  KB_TRY(require_directory(dir));
  auto text = config::read_build_toml(dir);
  if (!text) return std::move(text).error();
  std::string shown = config::build_toml_display_path(dir);
  auto migrated = config::migrate_build_toml(*text, shown);
  if (!migrated) return std::move(migrated).error();
  if (!migrated->has_value()) return {};  // already edition 5
  if (auto written = util::write_file_atomic(std::filesystem::path(dir) / "build.toml", **migrated); !written) {
    return written.error().context("Cannot update build configuration");
  }
  std::fprintf(stderr, "Updated %s to edition 5\n", shown.c_str());
  return {};
}

const RegisterCommand registration("kernel-builder", {"update-build", "Update build.toml to the current edition",
                                                      kernel_dir_command(update_build)});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
