// plan_version_branch: additions and stale deletions per docs/hub-api.md.
#include "hub/publish/operations.h"

#include <gtest/gtest.h>

namespace kb::hub::publish {
namespace {
namespace KB_UNITY_ID {

TEST(plan_version_branch, ExistingBranchDeletesOnlyStaleFilesOfUploadedVariants) {
  VersionBranchInput input;
  input.uploaded_variants = {"torch-cpu"};
  input.variant_files = {{"build/torch-cpu/__init__.py", "x"}};
  input.benchmarks = {{"benchmarks/benchmark.py", "b"}};
  input.remote_files = {"build/torch-cpu/__init__.py", "build/torch-cpu/old.py", "build/torch-cuda/a.py",
                        "benchmarks/benchmark_old.py", "benchmarks/data.csv", "README.md"};
  BranchPlan plan = plan_version_branch(input);
  EXPECT_EQ(plan.deletions, (std::vector<std::string>{"benchmarks/benchmark_old.py", "build/torch-cpu/old.py"}));
  EXPECT_EQ(plan.additions.size(), 2u);
}

TEST(plan_version_branch, NewBranchDeletesEverythingForkedFromMainUnderBuildAndBenchmarks) {
  VersionBranchInput input;
  input.new_branch = true;
  input.uploaded_variants = {"torch-cpu"};
  input.remote_files = {"build/torch-cuda/a.py", "benchmarks/data.csv", "README.md"};
  BranchPlan plan = plan_version_branch(input);
  EXPECT_EQ(plan.deletions, (std::vector<std::string>{"benchmarks/data.csv", "build/torch-cuda/a.py"}));
}

TEST(plan_version_branch, NewBranchRetryKeepsWhatOtherUploadsAddedSinceTheFork) {
  // This upload created the branch from main (which had build/torch-cuda/a.py); before its commit
  // another upload added build/torch-rocm/: planned again on the moved head, only the inherited
  // file is stale.
  VersionBranchInput input;
  input.new_branch = true;
  input.fork_files = std::set<std::string>{"build/torch-cuda/a.py", "README.md"};
  input.uploaded_variants = {"torch-cpu"};
  input.remote_files = {"build/torch-cuda/a.py", "build/torch-rocm/b.py", "benchmarks/benchmark_x.py", "README.md"};
  BranchPlan plan = plan_version_branch(input);
  EXPECT_EQ(plan.deletions, (std::vector<std::string>{"benchmarks/benchmark_x.py", "build/torch-cuda/a.py"}));
}

TEST(is_benchmark_script, MatchesBenchmarkPyFiles) {
  EXPECT_TRUE(is_benchmark_script("benchmark.py"));
  EXPECT_TRUE(is_benchmark_script("benchmark_attention.py"));
  EXPECT_FALSE(is_benchmark_script("bench.py"));
  EXPECT_FALSE(is_benchmark_script("benchmark.txt"));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::publish
