// Tests of resolve_kernel_dependencies: the depth-first walk over `kernel-depends` with a fake
// fetch (order, sharing, cycles, conflicts, failed fetches naming the chain).
#include "loader/kernel_dependencies.h"

#include <gtest/gtest.h>

#include <map>

namespace kb::loader {
namespace {
namespace KB_UNITY_ID {

using metadata::KernelDependency;
using metadata::Metadata;

KernelDependency on(const std::string& repo_id, int64_t version) { return KernelDependency{repo_id, version, std::nullopt}; }

Metadata depending_on(std::vector<KernelDependency> depends) {
  Metadata m;
  m.name = "root";
  m.kernel_depends = std::move(depends);
  return m;
}

// A fake Hub: repo id → what its (only) variant declares; `fetched` records the order.
struct FakeHub {
  std::map<std::string, std::vector<KernelDependency>> kernels;
  std::vector<std::string> fetched;

  FetchKernel fetch() {
    return [this](const KernelDependency& dependency) -> util::Result<FetchedKernel> {
      auto it = kernels.find(dependency.repo_id);
      if (it == kernels.end()) return util::Error(util::ErrorKind::not_found, "Repository not found");
      fetched.push_back(dependency.repo_id);
      return FetchedKernel{"c-" + dependency.repo_id, "/cache/" + dependency.repo_id, depending_on(it->second), {}};
    };
  }
};

TEST(ResolveKernelDependencies, DependenciesComeBeforeTheirDependents) {
  FakeHub hub;
  hub.kernels = {{"o/a", {on("o/b", 1), on("o/c", 1)}}, {"o/b", {on("o/c", 1)}}, {"o/c", {}}};
  auto resolved = resolve_kernel_dependencies("o/root", depending_on({on("o/a", 1)}), hub.fetch());
  ASSERT_TRUE(resolved) << resolved.error().message;
  std::vector<std::string> order;
  for (const auto& k : resolved->kernels) order.push_back(k.repo_id);
  EXPECT_EQ(order, (std::vector<std::string>{"o/c", "o/b", "o/a"}));
  EXPECT_EQ(hub.fetched, (std::vector<std::string>{"o/a", "o/b", "o/c"}));  // o/c fetched once
  EXPECT_EQ(resolved->kernels[0].chain, (std::vector<std::string>{"o/root", "o/a", "o/b", "o/c"}));
  EXPECT_EQ(resolved->kernels[0].commit, "c-o/c");
}

TEST(ResolveKernelDependencies, NoDependenciesFetchesNothing) {
  FakeHub hub;
  auto resolved = resolve_kernel_dependencies("o/root", depending_on({}), hub.fetch());
  ASSERT_TRUE(resolved);
  EXPECT_TRUE(resolved->kernels.empty());
  EXPECT_TRUE(hub.fetched.empty());
}

TEST(ResolveKernelDependencies, CycleNamesTheChain) {
  FakeHub hub;
  hub.kernels = {{"o/a", {on("o/b", 1)}}, {"o/b", {on("o/a", 1)}}};
  auto resolved = resolve_kernel_dependencies("o/a", depending_on({on("o/b", 1)}), hub.fetch());
  ASSERT_FALSE(resolved);
  EXPECT_EQ(resolved.error().message, "Kernel dependency cycle: `o/a` → `o/b` → `o/a`");
  EXPECT_EQ(resolved.error().kind, util::ErrorKind::invalid);
}

TEST(ResolveKernelDependencies, SelfDependencyIsACycle) {
  FakeHub hub;
  auto resolved = resolve_kernel_dependencies("o/a", depending_on({on("o/a", 1)}), hub.fetch());
  ASSERT_FALSE(resolved);
  EXPECT_EQ(resolved.error().message, "Kernel dependency cycle: `o/a` → `o/a`");
}

TEST(ResolveKernelDependencies, TwoVersionsOfOneKernelConflict) {
  FakeHub hub;
  hub.kernels = {{"o/a", {on("o/c", 1)}}, {"o/b", {on("o/c", 2)}}, {"o/c", {}}};
  auto resolved = resolve_kernel_dependencies("o/root", depending_on({on("o/a", 1), on("o/b", 1)}), hub.fetch());
  ASSERT_FALSE(resolved);
  EXPECT_EQ(resolved.error().message,
            "Conflicting requirements for kernel `o/c`: version 1 (`o/root` → `o/a` → `o/c`) and version 2 "
            "(`o/root` → `o/b` → `o/c`)");
}

TEST(ResolveKernelDependencies, VersionAndRevisionConflict) {
  FakeHub hub;
  hub.kernels = {{"o/a", {KernelDependency{"o/c", std::nullopt, "main"}}}, {"o/c", {}}};
  auto resolved = resolve_kernel_dependencies("o/root", depending_on({on("o/c", 1), on("o/a", 1)}), hub.fetch());
  ASSERT_FALSE(resolved);
  EXPECT_NE(resolved.error().message.find("version 1 (`o/root` → `o/c`) and revision `main`"), std::string::npos)
      << resolved.error().message;
}

TEST(ResolveKernelDependencies, FailedFetchNamesTheDependencyAndWhoNeedsIt) {
  FakeHub hub;
  hub.kernels = {{"o/a", {on("o/gone", 3)}}};
  auto resolved = resolve_kernel_dependencies("o/root", depending_on({on("o/a", 1)}), hub.fetch());
  ASSERT_FALSE(resolved);
  EXPECT_EQ(resolved.error().message,
            "Cannot load kernel dependency `o/gone` (version 3, required by `o/root` → `o/a`)");
  EXPECT_EQ(resolved.error().causes, (std::vector<std::string>{"Repository not found"}));
  EXPECT_EQ(resolved.error().kind, util::ErrorKind::not_found);
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::loader
