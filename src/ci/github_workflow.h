// `kernel-builder ci generate github`: a GitHub Actions workflow that runs a release plan
// (release_plan.h): one job builds kernel-builder per system, one job per plan group installs the
// group's toolchain, builds, checks and uploads its variants, and a last job checks that the
// version branch holds every planned variant (`kernel-builder ci verify`). Pure: plan in, text out.
#pragma once

#include <string>
#include <vector>

#include "ci/release_plan.h"
#include "util/result.h"

namespace kb::ci {

struct WorkflowOptions {
  std::string builder_repository;  // OWNER/NAME of the kernel-builder sources the jobs build
  std::string builder_ref;         // commit, tag or branch of those sources
  std::string kernel_path = ".";   // the kernel directory inside the kernel's repository
  std::string command_line;        // how the file was generated, for its header comment
  // The plan's selection as `ci verify` arguments (`--system x86_64-linux`, `--all`), so the last
  // job checks the branch against the same plan. Safe words only (no quoting is added).
  std::vector<std::string> verify_arguments;
  // Each build job signs the metadata.json of its variants with sigstore's keyless signing (the
  // workflow's GitHub identity), writing metadata.json.sigstore before the upload.
  bool sign = false;
};

// Errors: a group on a system without a Linux runner recipe (kernel-builder is built and tested
// on Linux only), an invalid repository or ref, a kernel path leaving the repository.
util::Result<std::string> render_github_workflow(const ReleasePlan& plan, const WorkflowOptions& options);

}  // namespace kb::ci
