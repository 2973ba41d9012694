// Planning a build run (run_plan.h): option checks, --variant selection, bundle variants without
// a toolchain, what is not built, jobs and cores, the caches' settings and notes.
#include "builder/run_plan.h"

#include <gtest/gtest.h>

namespace kb::builder {
namespace {
namespace KB_UNITY_ID {

BuildPlan plan_with(std::vector<std::string> variants, std::vector<std::string> missing) {
  BuildPlan plan;
  for (auto& name : variants)
    plan.variants.push_back(PlannedVariant{name, config::Backend::cpu, Flavour::torch_arch, nullptr, {}});
  for (auto& name : missing) plan.missing.push_back({name, "Python with torch 2.14 and CUDA 12.6"});
  return plan;
}

std::vector<std::string> names(const std::vector<PlannedVariant>& variants) {
  std::vector<std::string> out;
  for (const auto& v : variants) out.push_back(v.name);
  return out;
}

VariantSelection selection_of(size_t count) {
  VariantSelection selection;
  for (size_t i = 0; i < count; ++i) {
    PlannedVariant variant;
    variant.name = "v" + std::to_string(i);
    selection.selected.push_back(variant);
  }
  return selection;
}

TEST(check_build_options, RemoteCacheNeedsTheCompilerCache) {
  BuildOptions options;
  EXPECT_TRUE(check_build_options(options));
  options.remote_cache = "redis://host";
  EXPECT_TRUE(check_build_options(options));
  options.no_cache = true;
  auto checked = check_build_options(options);
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.error().kind, util::ErrorKind::usage);
  EXPECT_EQ(checked.error().message, "--remote-cache needs the compiler cache, which --no-cache turns off");
  EXPECT_EQ(checked.error().hints, (std::vector<std::string>{"drop one of them"}));
}

TEST(check_build_options, UniqueIdIsChecked) {
  BuildOptions options;
  options.unique_id = "not-valid!";
  EXPECT_FALSE(check_build_options(options));
  options.unique_id = "abc_123";
  EXPECT_TRUE(check_build_options(options));
}

TEST(select_variants, AllVariantsAndANoteForMissingBundleVariants) {
  auto selection = select_variants(plan_with({"a", "b"}, {"m"}), BuildOptions{});
  ASSERT_TRUE(selection) << selection.error().message;
  EXPECT_EQ(names(selection->selected), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(selection->not_built, (std::vector<std::string>{"m"}));
  EXPECT_EQ(selection->notes, (std::vector<std::string>{"bundle variants not built for lack of a toolchain: m"}));
  auto complete = select_variants(plan_with({"a"}, {}), BuildOptions{});
  ASSERT_TRUE(complete);
  EXPECT_TRUE(complete->notes.empty());
  EXPECT_TRUE(complete->not_built.empty());
}

TEST(select_variants, BundleNeedsEveryVariantUnlessSkipMissing) {
  BuildOptions options;
  options.bundle = true;
  auto refused = select_variants(plan_with({"a"}, {"m1", "m2"}), options);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, util::ErrorKind::config);
  EXPECT_EQ(refused.error().message, "missing toolchain for m1: Python with torch 2.14 and CUDA 12.6");
  ASSERT_EQ(refused.error().hints.size(), 1u);
  options.skip_missing = true;
  auto partial = select_variants(plan_with({"a"}, {"m1", "m2"}), options);
  ASSERT_TRUE(partial);
  EXPECT_EQ(names(partial->selected), (std::vector<std::string>{"a"}));
  EXPECT_EQ(partial->notes, (std::vector<std::string>{"bundle variants not built for lack of a toolchain: m1, m2"}));
}

TEST(select_variants, VariantOptionSelectsInItsOrderAndTheRestIsNotBuilt) {
  BuildOptions options;
  options.variants = {"c", "a"};
  auto selection = select_variants(plan_with({"a", "b", "c"}, {"m"}), options);
  ASSERT_TRUE(selection) << selection.error().message;
  EXPECT_EQ(names(selection->selected), (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(selection->not_built, (std::vector<std::string>{"m", "b"}));
  EXPECT_TRUE(selection->notes.empty());
}

TEST(select_variants, VariantOptionNamesAMissingOrUnknownVariant) {
  BuildOptions options;
  options.variants = {"m"};
  auto missing = select_variants(plan_with({"b", "a"}, {"m"}), options);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, util::ErrorKind::config);
  EXPECT_EQ(missing.error().message, "missing toolchain for m: Python with torch 2.14 and CUDA 12.6");
  options.variants = {"a", "zz"};
  auto unknown = select_variants(plan_with({"b", "a"}, {"m"}), options);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().kind, util::ErrorKind::usage);
  EXPECT_EQ(unknown.error().message, "Unknown variant `zz`.\nValid variants are: a, b, m");
}

TEST(plan_run, CoresAreSharedBetweenTheVariantsBuiltAtOnce) {
  BuildOptions options;
  options.max_jobs = 2;
  HostFacts host;
  host.hardware_threads = 16;
  RunPlan run = plan_run(options, selection_of(3), host, "id", std::nullopt);
  EXPECT_EQ(run.workers, 2);
  EXPECT_EQ(run.settings.concurrent_variants, 2);
  EXPECT_EQ(run.settings.cores, 8);
  // Fewer variants than --max-jobs: one worker per variant, the cores still divided by --max-jobs.
  options.max_jobs = 4;
  RunPlan one = plan_run(options, selection_of(1), host, "id", std::nullopt);
  EXPECT_EQ(one.workers, 1);
  EXPECT_EQ(one.settings.cores, 4);
  // --cores wins; nonsense values become 1.
  options.cores = 3;
  EXPECT_EQ(plan_run(options, selection_of(2), host, "id", std::nullopt).settings.cores, 3);
  options.cores = 0;
  options.max_jobs = 0;
  RunPlan floor = plan_run(options, selection_of(2), host, "id", std::nullopt);
  EXPECT_EQ(floor.settings.cores, 1);
  EXPECT_EQ(floor.workers, 1);
  options.cores.reset();
  options.max_jobs = 32;
  EXPECT_EQ(plan_run(options, selection_of(40), host, "id", std::nullopt).settings.cores, 1);
}

TEST(plan_run, MemoryBudgetAndNvccThreads) {
  BuildOptions options;
  HostFacts host;
  host.available_memory_gib = 12.5;
  host.nvcc_threads = 4;
  RunPlan run = plan_run(options, selection_of(1), host, "id", std::nullopt);
  EXPECT_EQ(run.settings.memory_budget_gib, 12.5);
  EXPECT_EQ(run.settings.nvcc_threads, 4);
  options.memory_budget_gib = 3.0;
  EXPECT_EQ(plan_run(options, selection_of(1), host, "id", std::nullopt).settings.memory_budget_gib, 3.0);
}

TEST(plan_run, RemoteCacheTurnsTheHeaderCacheOffWithANote) {
  BuildOptions options;
  RunPlan local = plan_run(options, selection_of(1), HostFacts{}, "id", std::nullopt);
  EXPECT_TRUE(local.settings.header_cache);
  EXPECT_TRUE(local.notes.empty());
  RunPlan shared = plan_run(options, selection_of(1), HostFacts{}, "id", std::string("redis://h"));
  EXPECT_EQ(shared.settings.remote_cache, "redis://h");
  EXPECT_FALSE(shared.settings.header_cache);
  ASSERT_EQ(shared.notes.size(), 1u);
  EXPECT_EQ(shared.notes[0].rfind("the torch header cache is off with --remote-cache", 0), 0u);
  options.no_header_cache = true;
  EXPECT_TRUE(plan_run(options, selection_of(1), HostFacts{}, "id", std::string("redis://h")).notes.empty());
}

TEST(plan_run, OptionsBecomeSettings) {
  BuildOptions options;
  options.bundle = true;
  options.no_portable = true;
  options.no_cache = true;
  options.no_symbol_isolation = true;
  options.no_import_check = true;
  options.skip_checks = true;
  options.print_build_logs = true;
  options.offline = true;
  options.manylinux = "manylinux_2_28";
  options.builder_version = "1.2.3";
  options.builder_commit = std::string(40, 'a');
  HostFacts host;
  host.git = GitInfo{std::string(40, 'b'), std::string(40, 'c'), true};
  RunPlan run = plan_run(options, selection_of(1), host, "uid", std::nullopt);
  const BuildSettings& s = run.settings;
  EXPECT_EQ(s.unique_id, "uid");
  EXPECT_TRUE(s.strict_manylinux);
  EXPECT_FALSE(s.portable);
  EXPECT_FALSE(s.use_compiler_cache);
  EXPECT_FALSE(s.symbol_isolation);
  EXPECT_FALSE(s.import_check);
  EXPECT_TRUE(s.skip_checks);
  EXPECT_TRUE(s.stream_logs);
  EXPECT_TRUE(s.offline);
  EXPECT_EQ(s.manylinux, "manylinux_2_28");
  ASSERT_TRUE(s.provenance.kernel_builder);
  EXPECT_EQ(s.provenance.kernel_builder->version, "1.2.3");
  ASSERT_TRUE(s.provenance.kernel_builder->git);
  EXPECT_EQ(s.provenance.kernel_builder->git->commit, std::string(40, 'a'));
  ASSERT_TRUE(s.provenance.kernel);
  EXPECT_TRUE(s.provenance.kernel->dirty);
  options.builder_commit = "unknown";
  EXPECT_FALSE(plan_run(options, selection_of(1), host, "uid", std::nullopt).settings.provenance.kernel_builder->git);
}

TEST(first_failure, CountsTheOtherFailuresInAHint) {
  util::Error a(util::ErrorKind::process, "Cannot build variant `a`");
  a.hints.push_back("full log: a.log");
  EXPECT_EQ(first_failure({a}).hints, (std::vector<std::string>{"full log: a.log"}));
  util::Error b(util::ErrorKind::process, "Cannot build variant `b`");
  auto both = first_failure({a, b});
  EXPECT_EQ(both.message, "Cannot build variant `a`");
  EXPECT_EQ(both.hints, (std::vector<std::string>{"full log: a.log", "1 more variant(s) failed as well"}));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::builder
