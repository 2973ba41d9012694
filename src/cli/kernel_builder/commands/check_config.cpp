// `kernel-builder check-config [KERNEL_DIR]`: parse and validate build.toml, printing every error
// and warning compiler-style (a source file it lists that does not exist is an error); silent when
// the file is clean.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cli/command_registry.h"
#include "cli/kernel_builder/commands/kernel_dir.h"
#include "config/reader.h"
#include "config/source_files.h"
#include "util/exit_code.h"
#include "util/report.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

struct Options {
  std::string dir = ".";
};

int check_config(const Options& options) {
  if (auto status = require_directory(options.dir); !status) return report_error(status.error());
  auto text = config::read_build_toml(options.dir);
  if (!text) return report_error(text.error());
  std::string shown = config::build_toml_display_path(options.dir);
  config::ParseOutcome outcome = config::parse_build_toml(*text, shown);
  if (outcome.parsed) {  // the listed sources must exist, as `build` needs them
    auto missing = config::missing_source_files(*text, shown, options.dir);
    if (!missing.empty()) {
      outcome.errors.insert(outcome.errors.end(), missing.begin(), missing.end());
      outcome.parsed.reset();
    }
  }
  std::string report = config::render_diagnostics(outcome.warnings, *text, "warning") +
                       config::render_diagnostics(outcome.errors, *text, "error");
  std::fputs(report.c_str(), stderr);
  if (!outcome.parsed) {
    size_t count = outcome.errors.size();
    util::print_error(util::Error(util::ErrorKind::config, "found " + std::to_string(count) +
                                                               (count == 1 ? " error" : " errors") + " in " + shown));
    return util::to_int(util::ExitCode::failure);
  }
  if (outcome.parsed->edition == config::Edition::v3) {
    util::print_error(util::Error(util::ErrorKind::config, std::string(config::legacy_v3_error())));
    return util::to_int(util::ExitCode::failure);
  }
  if (outcome.parsed->edition == config::Edition::v4) {
    std::fprintf(stderr, "%s\n", std::string(config::legacy_v4_warning()).c_str());
  }
  return util::to_int(util::ExitCode::success);
}

Action setup(CLI::App& app) {
  auto options = std::make_shared<Options>();
  add_kernel_dir(app, options->dir);
  return [options] { return check_config(*options); };
}

const RegisterCommand registration("kernel-builder", {"check-config", "Validate build.toml", setup});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
