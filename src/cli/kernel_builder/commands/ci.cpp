// `kernel-builder ci plan|generate github|verify`: a release spread over CI jobs. `plan` prints
// the release bundle grouped by toolchain (JSON, one group per job: src/ci/release_plan.h),
// `generate github` writes the GitHub Actions workflow that runs it (src/ci/github_workflow.h),
// `verify` checks that the uploaded branch holds every planned variant (src/ci/branch_check.h).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "builder/builder.h"
#include "ci/branch_check.h"
#include "ci/github_workflow.h"
#include "ci/release_plan.h"
#include "cli/app.h"
#include "cli/command_registry.h"
#include "cli/kernel_builder/commands/kernel_dir.h"
#include "config/reader.h"
#include "hub/client/settings.h"
#include "util/exit_code.h"
#include "util/fs.h"
#include "util/process.h"
#include "util/report.h"
#include "util/strings.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

namespace fs = std::filesystem;

struct Selection {
  std::string dir = ".";
  std::vector<std::string> systems;
  bool all = false;
};

struct Options {
  Selection plan;
  std::vector<std::string> pythons;
  std::string toolchains;
  // generate github
  std::string builder_repo;
  std::string builder_ref;
  bool sign = false;
  std::string kernel_path;
  std::string output;
  // verify
  std::string plan_file;
  std::string repo_id;
  std::string branch;
  std::string repo_type = "kernel";
};

void add_selection(CLI::App* app, Selection& s, const std::string& default_systems = "every system") {
  add_kernel_dir(*app, s.dir);
  app->add_option("--system", s.systems, "Plan only this system, e.g. x86_64-linux (repeatable; default: " + default_systems + ")")
      ->allow_extra_args(false);
  app->add_flag("--all", s.all, "Also plan the reference matrix's build sets outside the release bundle");
}

util::Result<ci::ReleasePlan> make_plan(const Selection& s) {
  KB_TRY(require_directory(s.dir));
  auto config = config::load_build_config(s.dir);
  if (!config) return std::move(config).error();
  auto matrix = variant::reference_matrix();
  if (!matrix) return std::move(matrix).error();
  return ci::plan_release(*matrix, *config, ci::PlanOptions{s.systems, s.all});
}

// With --python/--toolchains: groups get buildable_here/toolchain_here, and the toolchains'
// variants outside the reference matrix get groups of their own, as `build` would build them.
util::Status mark_toolchains(const Options& o, ci::ReleasePlan& plan) {
  if (o.pythons.empty() && o.toolchains.empty()) return {};
  auto config = config::load_build_config(o.plan.dir);
  if (!config) return std::move(config).error();
  builder::BuildOptions build_options;
  build_options.pythons = o.pythons;
  if (!o.toolchains.empty()) build_options.toolchains_file = o.toolchains;
  auto buildable = builder::buildable_variants(*config, build_options);
  if (!buildable) return std::move(buildable).error();
  for (const auto& problem : buildable->problems) util::print_warning("toolchain not usable: " + problem);
  // Only variants outside the matrix get a group: a matrix variant left out by the selection stays out.
  auto matrix = variant::reference_matrix();
  if (!matrix) return std::move(matrix).error();
  auto listed = variant::project_variants(*matrix, *config, std::nullopt);
  if (!listed) return std::move(listed).error();
  for (const auto& v : buildable->variants) {
    auto name = variant::VariantName::parse(v.name);
    if (!name || !name->is_arch()) continue;
    const std::string system = name->cpu + "-" + name->os;
    if (!o.plan.systems.empty() && std::find(o.plan.systems.begin(), o.plan.systems.end(), system) == o.plan.systems.end()) {
      continue;
    }
    bool in_matrix = std::any_of(listed->variants.begin(), listed->variants.end(),
                                 [&](const variant::ProjectVariant& p) { return p.name_text == v.name; });
    // add_toolchain_variant adds nothing for a variant the plan already has.
    if (!in_matrix) KB_TRY(ci::add_toolchain_variant(plan, v.name, v.backend));
  }
  for (auto& group : plan.groups) {
    bool all_found = true;
    for (const auto& name : group.variants) {
      const auto* found = buildable->find(name);
      if (!found) {
        all_found = false;
      } else if (!group.toolchain_here) {
        group.toolchain_here = found->toolchain;
      }
    }
    group.buildable_here = all_found;
    if (!all_found) group.toolchain_here.reset();
  }
  return {};
}

int run_plan(const Options& o) {
  auto plan = make_plan(o.plan);
  if (!plan) return report_error(plan.error());
  if (auto status = mark_toolchains(o, *plan); !status) return report_error(status.error());
  if (!plan->left_out.empty()) {
    std::fprintf(stderr, "note: %zu bundle variant(s) of other systems are not in this plan\n", plan->left_out.size());
  }
  std::fputs(ci::render_plan_json(*plan).c_str(), stdout);
  size_t variants = ci::planned_variants(*plan).size();
  std::fprintf(stderr, "%zu variant(s) in %zu job group(s)\n", variants, plan->groups.size());
  return util::to_int(util::ExitCode::success);
}

// The kernel directory relative to its git repository's root ("." at the root), or nullopt
// outside a git work tree.
std::optional<std::string> path_in_repository(const std::string& dir) {
  auto run = util::run_process({"git", "-C", dir, "rev-parse", "--show-prefix"});
  if (!run || run->exit_code != 0) return std::nullopt;
  std::string prefix(util::trim(run->stdout_text));
  while (prefix.ends_with("/")) prefix.pop_back();
  return prefix.empty() ? "." : prefix;
}

int run_generate_github(Options& o) {
  // Default: the Linux systems of the bundle (kernel-builder's CI recipe is for Linux runners).
  Selection selection = o.plan;
  if (selection.systems.empty()) {
    auto full = make_plan(selection);
    if (!full) return report_error(full.error());
    std::vector<std::string> left;
    for (const auto& system : full->systems) {
      (system.ends_with("-linux") ? selection.systems : left).push_back(system);
    }
    for (const auto& system : left) {
      std::fprintf(stderr,
                   "note: `%s` variants are not in the workflow: kernel-builder's CI recipe is for Linux runners; build them "
                   "on such a machine with `kernel-builder build --bundle` and upload them\n",
                   system.c_str());
    }
    bool arch_groups = std::any_of(full->groups.begin(), full->groups.end(), [](const ci::PlanGroup& g) { return g.id != "noarch"; });
    if (!arch_groups) selection.systems.clear();
  }
  auto plan = make_plan(selection);
  if (!plan) return report_error(plan.error());

  ci::WorkflowOptions options;
  options.builder_repository = o.builder_repo;
  options.builder_ref = o.builder_ref.empty() ? builder_commit() : o.builder_ref;
  if (options.builder_ref.empty() || (o.builder_ref.empty() && builder_dirty())) {
    return report_error(util::Error(util::ErrorKind::usage, "No kernel-builder commit to pin: this binary was not built from a clean git checkout")
                            .with_hint("Pass --builder-ref with the commit, tag or branch the CI jobs should build."));
  }
  if (o.kernel_path.empty()) o.kernel_path = path_in_repository(selection.dir).value_or(".");
  options.kernel_path = o.kernel_path;
  options.sign = o.sign;
  for (const auto& system : selection.systems) {
    options.verify_arguments.push_back("--system");
    options.verify_arguments.push_back(system);
  }
  if (selection.all) options.verify_arguments.push_back("--all");
  options.command_line = "kernel-builder ci generate github --builder-repo " + o.builder_repo + " --builder-ref " +
                         options.builder_ref + (o.sign ? " --sign " : " ") + util::join(options.verify_arguments, " ");
  while (options.command_line.ends_with(" ")) options.command_line.pop_back();
  auto text = ci::render_github_workflow(*plan, options);
  if (!text) return report_error(text.error());
  if (o.output.empty() || o.output == "-") {
    std::fputs(text->c_str(), stdout);
  } else {
    std::error_code ec;
    fs::create_directories(fs::path(o.output).parent_path().empty() ? fs::path(".") : fs::path(o.output).parent_path(), ec);
    if (auto status = util::write_file_atomic(o.output, *text); !status) return report_error(status.error());
    std::fprintf(stderr, "Wrote %s: %zu build job(s) for %zu variant(s)\n", o.output.c_str(), plan->groups.size(),
                 ci::planned_variants(*plan).size());
  }
  return util::to_int(util::ExitCode::success);
}

int run_verify(const Options& o) {
  util::Result<ci::ReleasePlan> plan = util::Error("no plan");
  if (!o.plan_file.empty()) {
    auto text = util::read_file(o.plan_file);
    if (!text) return report_error(text.error());
    plan = ci::parse_plan_json(*text);
  } else {
    plan = make_plan(o.plan);
  }
  if (!plan) return report_error(plan.error());
  std::string repo_id = o.repo_id.empty() ? plan->repo_id.value_or("") : o.repo_id;
  if (repo_id.empty()) {
    return report_error(util::Error(util::ErrorKind::config, "No repository to check: build.toml has no `general.hub.repo-id`")
                            .with_hint("Pass --repo-id ORG/NAME."));
  }
  const std::string branch = o.branch.empty() ? plan->branch : o.branch;
  hub::client::HubClient hub(hub::client::settings_from_environment());
  auto report = ci::check_branch(hub, *plan, repo_id, branch, o.repo_type);
  if (!report) return report_error(report.error());
  std::fputs(ci::render_branch_report(*report).c_str(), stdout);
  if (!report->complete()) {
    return report_error(util::Error(util::ErrorKind::not_found, std::to_string(report->missing.size()) + " planned variant(s) missing on `" +
                                                                    branch + "` of " + repo_id)
                            .with_hint("Rerun the failed build jobs; each uploads its variants with `kernel-builder upload`."));
  }
  return util::to_int(util::ExitCode::success);
}

Action setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.require_subcommand(1, 1);
  CLI::App* plan = app.add_subcommand("plan", "Print the release plan: the bundle's variants grouped by toolchain, one group per CI job (JSON)");
  add_selection(plan, o->plan);
  plan->add_option("--python", o->pythons, "Mark the groups this interpreter with torch builds here (repeatable)")
      ->allow_extra_args(false);
  plan->add_option("--toolchains", o->toolchains, "Mark the groups the toolchains of this registry file build here");

  CLI::App* generate = app.add_subcommand("generate", "Write a CI workflow that runs the release plan");
  generate->require_subcommand(1, 1);
  CLI::App* github = generate->add_subcommand(
      "github", "GitHub Actions: one job per plan group (toolchain from pip, build, upload), then a check of the branch");
  add_selection(github, o->plan, "the Linux systems");
  github->add_option("--builder-repo", o->builder_repo, "GitHub repository OWNER/NAME with kernel-builder's sources the jobs build")
      ->required();
  github->add_option("--builder-ref", o->builder_ref,
                     "Commit, tag or branch of those sources (default: the commit this kernel-builder was built from)");
  github->add_option("--kernel-path", o->kernel_path,
                     "The kernel directory inside its repository (default: KERNEL_DIR's path in its git work tree)");
  github->add_flag("--sign", o->sign,
                   "Sign each variant's metadata.json with sigstore (keyless, the workflow's GitHub identity) before "
                   "the upload; check with `kernels verify-signature --signer <workflow URI>`");
  github->add_option("-o,--output", o->output, "Write the workflow to this file, e.g. .github/workflows/release.yml (default: stdout)");

  CLI::App* verify = app.add_subcommand("verify", "Check that the Hub branch holds every planned variant (exit 1 if not)");
  add_selection(verify, o->plan);
  verify->add_option("--plan", o->plan_file, "Check against this plan (the JSON of `ci plan`) instead of build.toml's");
  verify->add_option("--repo-id", o->repo_id, "Repository ORG/NAME (default: [general.hub] repo-id)");
  verify->add_option("--branch", o->branch, "Branch (default: [general.hub] branch, else v<version>)");
  verify->add_option("--repo-type", o->repo_type, "Repository type")->check(CLI::IsMember({"kernel", "model"}))->capture_default_str();
  return [o, plan, github, verify] {
    if (plan->parsed()) return run_plan(*o);
    if (github->parsed()) return run_generate_github(*o);
    if (verify->parsed()) return run_verify(*o);
    return util::to_int(util::ExitCode::usage);
  };
}

const RegisterCommand registration("kernel-builder", {"ci", "Plan a release over CI jobs, generate the workflow, verify the branch", setup});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
