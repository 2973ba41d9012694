// The GitHub Actions workflow of a release plan (src/ci/github_workflow.h), read back with
// yaml-cpp: one build-matrix entry per plan group with what it installs, self-hosted groups in a
// job of their own, the branch check last, and refusals with hints.
#include "ci/github_workflow.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <functional>
#include <set>

#include "ci_test_support.h"

namespace kb::ci {
namespace {
namespace KB_UNITY_ID {

using config::Backend;

using test::matrix;

config::BuildConfig project(std::vector<Backend> backends) { return test::torch_project(backends); }

WorkflowOptions options() {
  WorkflowOptions o;
  o.builder_repository = "acme/kernel-builder";
  o.builder_ref = "0123456789abcdef0123456789abcdef01234567";
  o.kernel_path = "kernels/relu";
  o.command_line = "kernel-builder ci generate github";
  o.verify_arguments = {"--system", "x86_64-linux"};
  return o;
}

YAML::Node render(const ReleasePlan& plan, const WorkflowOptions& o = options()) {
  auto text = render_github_workflow(plan, o);
  EXPECT_TRUE(text) << (text ? "" : text.error().message);
  return YAML::Load(text ? *text : "");
}

TEST(GithubWorkflow, OneMatrixEntryPerGroupWithItsToolchain) {
  auto plan = plan_release(matrix(), project({Backend::cpu, Backend::cuda}), {{"x86_64-linux"}, false});
  ASSERT_TRUE(plan);
  YAML::Node doc = render(*plan);
  YAML::Node jobs = doc["jobs"];
  ASSERT_TRUE(jobs["kernel-builder"] && jobs["build"] && jobs["verify"]);
  EXPECT_FALSE(jobs["build-self-hosted"]);
  YAML::Node include = jobs["build"]["strategy"]["matrix"]["include"];
  ASSERT_EQ(include.size(), plan->groups.size());
  std::set<std::string> variants;
  for (size_t i = 0; i < include.size(); ++i) {
    const PlanGroup& g = plan->groups[i];
    EXPECT_EQ(include[i]["group"].as<std::string>(), g.id);
    EXPECT_EQ(include[i]["torch"].as<std::string>(), g.install.torch.value());
    EXPECT_EQ(include[i]["nvcc"].as<std::string>(), g.install.nvcc.value_or(""));
    EXPECT_EQ(include[i]["runs-on"].as<std::string>(), "[\"ubuntu-24.04\"]");
    variants.insert(include[i]["variants"].as<std::string>());
  }
  EXPECT_TRUE(variants.count("torch214-cxx11-cu130-x86_64-linux"));
  EXPECT_EQ(jobs["build"]["container"].as<std::string>(), "debian:12");
  EXPECT_EQ(jobs["build"]["needs"].as<std::string>(), "kernel-builder");
  EXPECT_FALSE(jobs["build"]["strategy"]["fail-fast"].as<bool>());
  // The kernel directory inside the checkout, the pinned sources, and the same plan for verify.
  std::string text = render_github_workflow(*plan, options()).value();
  EXPECT_NE(text.find("KERNEL_DIR: kernel/kernels/relu"), std::string::npos);
  EXPECT_NE(text.find("ref: 0123456789abcdef0123456789abcdef01234567"), std::string::npos);
  YAML::Node verify_steps = jobs["verify"]["steps"];
  EXPECT_EQ(verify_steps[verify_steps.size() - 1]["run"].as<std::string>(),
            "kernel-builder ci verify \"$KERNEL_DIR\" --system x86_64-linux\n");
  EXPECT_EQ(jobs["verify"]["needs"][0].as<std::string>(), "build");
  EXPECT_TRUE(doc["on"]["workflow_dispatch"]);
}

TEST(GithubWorkflow, SelfHostedGroupsRunWithoutTheContainer) {
  auto plan = plan_release(matrix(), project({Backend::cpu, Backend::rocm}), {{"x86_64-linux"}, false});
  ASSERT_TRUE(plan);
  YAML::Node jobs = render(*plan)["jobs"];
  ASSERT_TRUE(jobs["build-self-hosted"]);
  EXPECT_FALSE(jobs["build-self-hosted"]["container"]);
  for (const auto& entry : jobs["build-self-hosted"]["strategy"]["matrix"]["include"]) {
    EXPECT_EQ(entry["runs-on"].as<std::string>(), "[\"self-hosted\", \"linux\", \"x64\", \"rocm\"]");
  }
  EXPECT_EQ(jobs["verify"]["needs"].size(), 2u);
}

TEST(GithubWorkflow, RefusesSystemsWithoutALinuxRecipe) {
  auto plan = plan_release(matrix(), project({Backend::metal}), {});
  ASSERT_TRUE(plan);
  auto text = render_github_workflow(*plan, options());
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().kind, util::ErrorKind::usage);
  ASSERT_FALSE(text.error().hints.empty());
  EXPECT_NE(text.error().hints[0].find("--system"), std::string::npos);
}

TEST(GithubWorkflow, RefusesBadOptions) {
  auto plan = plan_release(matrix(), project({Backend::cpu}), {{"x86_64-linux"}, false});
  ASSERT_TRUE(plan);
  for (auto change : std::vector<std::function<void(WorkflowOptions&)>>{
           [](WorkflowOptions& o) { o.builder_repository = "not a repo"; },
           [](WorkflowOptions& o) { o.builder_ref = "main; rm -rf /"; },
           [](WorkflowOptions& o) { o.kernel_path = "../elsewhere"; },
           [](WorkflowOptions& o) { o.kernel_path = "/abs"; },
       }) {
    WorkflowOptions o = options();
    change(o);
    auto text = render_github_workflow(*plan, o);
    ASSERT_FALSE(text);
    EXPECT_EQ(text.error().kind, util::ErrorKind::usage);
    EXPECT_FALSE(text.error().hints.empty());
  }
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::ci
