// The embedded Python-dependency registry and per-backend resolution (docs/build-toml.md).
#include <gtest/gtest.h>

#include "config/python_registry.h"

namespace kb::config {
namespace {
namespace KB_UNITY_ID {

TEST(PythonRegistryEmbedded, HoldsExactlyTheSpecEntries) {
  const auto& registry = PythonRegistry::embedded();
  EXPECT_EQ(registry.general_names(), (std::vector<std::string>{"einops", "helion", "tvm-ffi"}));
  const auto* tvm = registry.find_general("tvm-ffi");
  ASSERT_NE(tvm, nullptr);
  ASSERT_EQ(tvm->python.size(), 1u);
  EXPECT_EQ(tvm->python[0].pkg, "apache-tvm-ffi");
  EXPECT_EQ(tvm->python[0].import_name, "tvm_ffi");
  EXPECT_EQ(tvm->nix, (std::vector<std::string>{"tvm-ffi"}));
  EXPECT_EQ(registry.find_backend(Backend::cuda, "nvidia-cutlass-dsl")->python[0].import_name, "cutlass");
  EXPECT_EQ(registry.find_backend(Backend::neuron, "nki")->python[0].pkg, "nki");
  const auto* onednn = registry.find_backend(Backend::xpu, "onednn");
  ASSERT_NE(onednn, nullptr);
  EXPECT_EQ(onednn->python[0].pkg, "onednn-devel");
  EXPECT_FALSE(onednn->python[0].import_name.has_value());
  EXPECT_TRUE(registry.has_backend_table(Backend::cpu));
  EXPECT_FALSE(registry.has_backend_table(Backend::tpu));
  EXPECT_FALSE(registry.has_backend_table(Backend::cann));
  EXPECT_EQ(registry.find_general("nki"), nullptr);
  EXPECT_NE(registry.json_text().find("\"nvidia-cutlass-dsl\""), std::string::npos);
}

BuildConfig config_with(std::vector<std::string> general, Backend backend, std::vector<std::string> names) {
  BuildConfig config;
  config.general.python_depends = std::move(general);
  GeneralBackendConfig section;
  section.python_depends = std::move(names);
  *const_cast<std::optional<GeneralBackendConfig>*>(general_backend_config(config.general, backend)) = section;
  return config;
}

TEST(ResolvePythonDepends, GeneralNamesFirstThenBackendNames) {
  const auto& registry = PythonRegistry::embedded();
  auto config = config_with({"einops"}, Backend::neuron, {"nki"});
  auto deps = resolve_python_depends(config, Backend::neuron, registry);
  ASSERT_TRUE(deps.ok());
  ASSERT_EQ(deps->size(), 2u);
  EXPECT_EQ((*deps)[0]->name, "einops");
  EXPECT_EQ((*deps)[1]->name, "nki");
  // Other backends see only the general names.
  EXPECT_EQ(resolve_python_depends(config, Backend::cuda, registry)->size(), 1u);
}

TEST(ResolvePythonDepends, ReportsUnknownNamesWithExactMessages) {
  const auto& registry = PythonRegistry::embedded();
  EXPECT_EQ(resolve_python_depends(config_with({"einopz"}, Backend::cuda, {}), Backend::cuda, registry).error().message,
            "Unknown dependency: `einopz`");
  EXPECT_EQ(resolve_python_depends(config_with({}, Backend::cuda, {"einops"}), Backend::cuda, registry).error().message,
            "Unknown dependency `einops` for backend `cuda`");
  EXPECT_EQ(resolve_python_depends(config_with({}, Backend::tpu, {"jax"}), Backend::tpu, registry).error().message,
            "No dependencies are defined for backend: tpu");
}

TEST(KernelDependsFor, AppendsTheBackendListForCudaNeuronXpu) {
  BuildConfig config;
  config.general.kernel_depends = {{"org/a", 1, std::nullopt}};
  GeneralBackendConfig cuda;
  cuda.kernel_depends = {{"org/b", std::nullopt, "main"}};
  config.general.cuda = cuda;
  auto deps = kernel_depends_for(config, Backend::cuda);
  ASSERT_EQ(deps.size(), 2u);
  EXPECT_EQ(deps[1].repo_id, "org/b");
  EXPECT_EQ(kernel_depends_for(config, Backend::rocm).size(), 1u);
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::config
