// Shared by `upload` and `build-and-upload`: the upload flags of docs/cli.md and the runner that
// prints the report (stderr progress, stdout result lines, --output-json).
#pragma once

#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>

#include "cli/command_registry.h"
#include "hub/client/settings.h"
#include "hub/publish/uploader.h"
#include "util/fs.h"
#include "util/report.h"

namespace kb::cli {

struct UploadCommandOptions {
  hub::publish::UploadOptions upload;
  std::string repo_id;
  std::string branch;
  std::string output_json;
  bool quiet = false;
};

inline void add_upload_flags(CLI::App& app, UploadCommandOptions& o) {
  app.add_option("--repo-id", o.repo_id, "Repository <ORG/NAME> (default: [general.hub] repo-id)");
  app.add_option("--branch", o.branch, "Branch (default: [general.hub] branch, else v<version>)");
  app.add_flag("--private", o.upload.is_private, "Create the repository as private");
  app.add_option("--repo-type", o.upload.repo_type, "Repository type")
      ->check(CLI::IsMember({"kernel", "model"}))
      ->capture_default_str();
  app.add_flag("--create-pr", o.upload.create_pr, "Open pull requests instead of committing to the branches");
  app.add_option("--output-json", o.output_json, "Write the upload result as JSON to this file");
  app.add_flag("-q,--quiet", o.quiet, "Hide progress");
}

inline int run_upload_command(UploadCommandOptions& o, const std::string& kernel_dir) {
  if (auto status = require_directory(kernel_dir); !status) return report_error(status.error());
  o.upload.kernel_dir = kernel_dir;
  if (!o.repo_id.empty()) o.upload.repo_id = o.repo_id;
  if (!o.branch.empty()) o.upload.branch = o.branch;
  hub::client::HubClient hub(hub::client::settings_from_environment());
  bool tty = ::isatty(STDERR_FILENO);
  hub::publish::UploadReporter reporter;
  reporter.info = [](const std::string& line) { std::cerr << line << "\n"; };
  reporter.warning = [](const std::string& line) { util::print_warning(line); };
  if (!o.quiet) {
    reporter.progress = [tty](const std::string& branch, size_t done, size_t total) {
      constexpr size_t width = 30;
      size_t filled = total == 0 ? width : done * width / total;
      std::cerr << (tty ? "\r" : "") << "Uploading to `" << branch << "` [" << std::string(filled, '#')
                << std::string(width - filled, ' ') << "] " << done << "/" << total << " files"
                << (tty && done < total ? "" : "\n") << std::flush;
    };
  }
  auto result = hub::publish::upload(hub, o.upload, reporter);
  if (!result) return report_error(result.error());
  if (result->status == "uploaded") {
    std::cout << "Kernel uploaded: " << *result->url << "\n";
  } else if (result->status == "pull_request_created") {
    for (const auto& pr : result->pull_requests) std::cout << "Pull request created: " << pr.url << "\n";
  } else {
    std::cerr << "No changes to upload.\n";
  }
  if (!o.output_json.empty()) {
    auto written = util::write_file_atomic(o.output_json, hub::publish::render_upload_json(*result));
    if (!written) return report_error(written.error());
  }
  return 0;
}

}  // namespace kb::cli
