// Release plans (src/ci/release_plan.h): the bundle grouped by toolchain, what each job installs,
// the --system/--all selection, variants outside the matrix, and the JSON round trip.
#include "ci/release_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "ci_test_support.h"

namespace kb::ci {
namespace {
namespace KB_UNITY_ID {

using config::Backend;
using config::BuildConfig;

using test::matrix;

BuildConfig torch_project(std::vector<Backend> backends) {
  BuildConfig c = test::torch_project(backends);
  c.general.version = 3;
  c.general.hub = config::HubConfig{"acme/relu", std::nullopt};
  return c;
}

BuildConfig noarch_project() {
  BuildConfig c;
  c.general.name = "relu";
  c.general.backends = {Backend::cpu, Backend::cuda};
  c.framework = config::TorchNoarchConfig{};
  return c;
}

const PlanGroup* group(const ReleasePlan& plan, const std::string& id) {
  auto it = std::find_if(plan.groups.begin(), plan.groups.end(), [&](const PlanGroup& g) { return g.id == id; });
  return it == plan.groups.end() ? nullptr : &*it;
}

std::set<std::string> bundle_names(const BuildConfig& config) {
  std::set<std::string> names;
  auto listed = variant::project_variants(matrix(), config, std::nullopt);
  EXPECT_TRUE(listed);
  if (!listed) return names;
  for (const auto& v : listed->variants) {
    if (v.bundle) names.insert(v.name_text);
  }
  return names;
}

TEST(ReleasePlan, EveryBundleVariantIsInExactlyOneGroup) {
  auto config = torch_project({Backend::cpu, Backend::cuda, Backend::rocm, Backend::xpu, Backend::metal});
  auto plan = plan_release(matrix(), config, {});
  ASSERT_TRUE(plan) << plan.error().message;
  auto names = planned_variants(*plan);
  std::set<std::string> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), names.size());
  EXPECT_EQ(unique, bundle_names(config));
  EXPECT_TRUE(plan->left_out.empty());
  EXPECT_EQ(plan->branch, "v3");
  EXPECT_EQ(plan->repo_id, "acme/relu");
  // One group per toolchain: torch x backend toolkit x system.
  std::set<std::string> ids;
  for (const auto& g : plan->groups) ids.insert(g.id);
  EXPECT_EQ(ids.size(), plan->groups.size());
}

TEST(ReleasePlan, CudaGroupsInstallTorchFromTheToolkitsIndexAndNvccFromPip) {
  auto plan = plan_release(matrix(), torch_project({Backend::cuda}), {});
  ASSERT_TRUE(plan) << plan.error().message;
  const PlanGroup* cu130 = group(*plan, "torch214-cu130-x86_64-linux");
  ASSERT_NE(cu130, nullptr);
  EXPECT_EQ(cu130->variants, std::vector<std::string>{"torch214-cxx11-cu130-x86_64-linux"});
  EXPECT_EQ(cu130->toolkit, "13.0");
  EXPECT_EQ(cu130->install.torch, "torch==2.14.*");
  EXPECT_EQ(cu130->install.torch_index, "https://download.pytorch.org/whl/cu130");
  EXPECT_EQ(cu130->install.nvcc, "nvidia-cuda-nvcc==13.0.* nvidia-nvvm==13.0.* nvidia-cuda-crt==13.0.*");
  EXPECT_EQ(cu130->install.runs_on, std::vector<std::string>{"ubuntu-24.04"});
  EXPECT_EQ(cu130->install.container, "debian:12");
  const PlanGroup* cu126 = group(*plan, "torch213-cu126-aarch64-linux");
  ASSERT_NE(cu126, nullptr);
  EXPECT_EQ(cu126->install.nvcc, "nvidia-cuda-nvcc-cu12==12.6.*");
  EXPECT_EQ(cu126->install.torch_index, "https://download.pytorch.org/whl/cu126");
  EXPECT_EQ(cu126->install.runs_on, std::vector<std::string>{"ubuntu-24.04-arm"});
}

TEST(ReleasePlan, RunnersPerBackendAndSystem) {
  auto plan = plan_release(matrix(), torch_project({Backend::cpu, Backend::rocm, Backend::metal}), {});
  ASSERT_TRUE(plan) << plan.error().message;
  const PlanGroup* rocm = group(*plan, "torch214-rocm714-x86_64-linux");
  ASSERT_NE(rocm, nullptr);
  EXPECT_TRUE(rocm->install.self_hosted);
  EXPECT_EQ(rocm->toolkit, "7.14");
  EXPECT_EQ(rocm->install.torch_index, "https://download.pytorch.org/whl/rocm7.14");
  EXPECT_FALSE(rocm->install.nvcc);
  const PlanGroup* metal = group(*plan, "torch214-metal-aarch64-darwin");
  ASSERT_NE(metal, nullptr);
  EXPECT_EQ(metal->install.runs_on, std::vector<std::string>{"macos-14"});
  EXPECT_FALSE(metal->install.container);
  EXPECT_FALSE(metal->install.torch_index);  // macOS: torch from the default index
  const PlanGroup* cpu = group(*plan, "torch213-cpu-x86_64-linux");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->install.torch_index, "https://download.pytorch.org/whl/cpu");
}

TEST(ReleasePlan, SystemSelectionLeavesTheOthersOutAndNamesThem) {
  auto config = torch_project({Backend::cpu, Backend::cuda});
  auto plan = plan_release(matrix(), config, {{"x86_64-linux"}, false});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->systems, std::vector<std::string>{"x86_64-linux"});
  for (const auto& g : plan->groups) EXPECT_EQ(g.system, "x86_64-linux") << g.id;
  ASSERT_FALSE(plan->left_out.empty());
  auto names = planned_variants(*plan);
  std::set<std::string> all(names.begin(), names.end());
  all.insert(plan->left_out.begin(), plan->left_out.end());
  EXPECT_EQ(all, bundle_names(config));

  auto unknown = plan_release(matrix(), config, {{"riscv64-linux"}, false});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().kind, util::ErrorKind::usage);
  ASSERT_EQ(unknown.error().hints.size(), 1u);
  EXPECT_NE(unknown.error().hints[0].find("x86_64-linux"), std::string::npos);
}

TEST(ReleasePlan, AllAddsTheNonBundleSets) {
  auto config = torch_project({Backend::cpu});
  auto bundle = plan_release(matrix(), config, {{"x86_64-linux"}, false});
  auto all = plan_release(matrix(), config, {{"x86_64-linux"}, true});
  ASSERT_TRUE(bundle && all);
  EXPECT_EQ(group(*bundle, "torch211-cpu-x86_64-linux"), nullptr);
  const PlanGroup* old = group(*all, "torch211-cpu-x86_64-linux");
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->variants, std::vector<std::string>{"torch211-cxx11-cpu-x86_64-linux"});

  auto cuda = torch_project({Backend::cuda});
  auto cuda_bundle = plan_release(matrix(), cuda, {});
  auto cuda_all = plan_release(matrix(), cuda, {{}, true});
  ASSERT_TRUE(cuda_bundle && cuda_all);
  EXPECT_EQ(group(*cuda_bundle, "torch215-cu134-aarch64-linux"), nullptr);
  const PlanGroup* nightly = group(*cuda_all, "torch215-cu134-aarch64-linux");
  ASSERT_NE(nightly, nullptr);
  EXPECT_EQ(nightly->install.torch_index, "https://download.pytorch.org/whl/cu134");
  EXPECT_EQ(nightly->install.nvcc, "nvidia-cuda-nvcc==13.4.* nvidia-nvvm==13.4.* nvidia-cuda-crt==13.4.*");
}

TEST(ReleasePlan, NoarchVariantsShareOneJobWithTheNewestBundleTorch) {
  auto plan = plan_release(matrix(), noarch_project(), {});
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->groups.size(), 1u);
  const PlanGroup& g = plan->groups[0];
  EXPECT_EQ(g.id, "noarch");
  EXPECT_EQ(g.variants, (std::vector<std::string>{"torch-cpu", "torch-cuda"}));
  // Torch 2.14, not the newer non-bundle 2.15 (a nightly build set).
  EXPECT_EQ(g.torch, "2.14");
  EXPECT_EQ(g.install.torch, "torch==2.14.*");
  EXPECT_FALSE(g.install.nvcc);
}

TEST(ReleasePlan, ToolchainVariantOutsideTheMatrixGetsItsOwnGroup) {
  auto plan = plan_release(matrix(), torch_project({Backend::cpu}), {{"x86_64-linux"}, false});
  ASSERT_TRUE(plan);
  size_t before = plan->groups.size();
  ASSERT_TRUE(add_toolchain_variant(*plan, "torch215-cxx11-cpu-x86_64-linux", Backend::cpu));
  ASSERT_TRUE(add_toolchain_variant(*plan, "torch215-cxx11-cpu-x86_64-linux", Backend::cpu));  // once only
  ASSERT_EQ(plan->groups.size(), before + 1);
  const PlanGroup* extra = group(*plan, "torch215-cpu-x86_64-linux");
  ASSERT_NE(extra, nullptr);
  EXPECT_FALSE(extra->in_matrix);
  EXPECT_EQ(extra->install.torch, "torch==2.15.*");
  EXPECT_EQ(extra->variants.size(), 1u);
}

TEST(ReleasePlan, JsonRoundTrip) {
  auto plan = plan_release(matrix(), torch_project({Backend::cpu, Backend::cuda, Backend::rocm}), {});
  ASSERT_TRUE(plan);
  plan->groups[0].buildable_here = true;
  plan->groups[0].toolchain_here = "/usr/bin/python3 (torch 2.13.0)";
  std::string text = render_plan_json(*plan);
  auto parsed = parse_plan_json(text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(render_plan_json(*parsed), text);
}

TEST(ReleasePlan, ParseRefusesWhatIsNotAPlan) {
  for (const char* text : {"[]", "{\"format_version\": 2}", "{\"format_version\": 1}", "not json"}) {
    auto parsed = parse_plan_json(text);
    ASSERT_FALSE(parsed) << text;
    EXPECT_EQ(parsed.error().kind, util::ErrorKind::config);
    EXPECT_FALSE(parsed.error().hints.empty());
  }
  auto plan = plan_release(matrix(), noarch_project(), {});
  std::string text = render_plan_json(*plan);
  text.replace(text.find("\"torch-cpu\""), 11, "\"../../etc\"");
  EXPECT_FALSE(parse_plan_json(text));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::ci
