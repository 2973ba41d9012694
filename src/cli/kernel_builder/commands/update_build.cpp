// `kernel-builder update-build [KERNEL_DIR]`: rewrite a legacy (v4 / v3) build.toml as edition 5,
// atomically; an edition-5 file is left untouched (build-toml.md §7).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cli/command_registry.h"
#include "config/migrate.h"
#include "config/reader.h"
#include "util/fs.h"

namespace kb::cli {
namespace {

struct Options {
  std::string dir = ".";
};

util::Status update_build(const Options& options) {
  KB_TRY(require_directory(options.dir));
  auto text = config::read_build_toml(options.dir);
  if (!text) return std::move(text).error();
  std::string shown = config::build_toml_display_path(options.dir);
  auto migrated = config::migrate_build_toml(*text, shown);
  if (!migrated) return std::move(migrated).error();
  if (!migrated->has_value()) return {};  // already edition 5
  if (auto written = util::write_file_atomic(std::filesystem::path(options.dir) / "build.toml", **migrated); !written) {
    return written.error().context("Cannot update build configuration");
  }
  std::fprintf(stderr, "Updated %s to edition 5\n", shown.c_str());
  return {};
}

Action setup(CLI::App& app) {
  auto options = std::make_shared<Options>();
  app.add_option("KERNEL_DIR", options->dir, "Kernel directory (default: current directory)");
  return [options] { return exit_status(update_build(*options)); };
}

const RegisterCommand registration("kernel-builder",
                                   {"update-build", "Update build.toml to the current edition", setup});

}  // namespace
}  // namespace kb::cli
