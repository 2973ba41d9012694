// Which sources see the ops id (ops_id_use.h): the scan of a text, the decision over a variant's
// sources, and the walk through a project's headers.
#include "builder/ops_id_use.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "codegen/ops_py.h"

namespace kb::builder {
namespace {
namespace KB_UNITY_ID {

const std::string kMacro = "TORCH_EXTENSION_NAME";

TEST(scan_ops_id_text, RegistrationMacrosOnly) {
  auto scan = scan_ops_id_text(
      "#include <torch/library.h>\n#include \"registration.h\"\n"
      "// The op is registered under this build's ops id (TORCH_EXTENSION_NAME).\n"
      "TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {\n  ops.def(\"f(Tensor x) -> Tensor\");\n}\n"
      "TORCH_LIBRARY_IMPL_EXPAND( TORCH_EXTENSION_NAME , CUDA, ops) {}\n"
      "REGISTER_EXTENSION(TORCH_EXTENSION_NAME)\n",
      kMacro);
  EXPECT_FALSE(scan.other_use);
  EXPECT_TRUE(scan.registers);
  EXPECT_EQ(scan.register_extension, 1);
}

TEST(scan_ops_id_text, OtherUsesOfTheMacro) {
  EXPECT_TRUE(scan_ops_id_text("const char* name = STRINGIFY(TORCH_EXTENSION_NAME);\n", kMacro).other_use);
  EXPECT_TRUE(scan_ops_id_text("PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {}\n", kMacro).other_use);
  EXPECT_TRUE(scan_ops_id_text("#define NS TORCH_EXTENSION_NAME\nTORCH_LIBRARY_EXPAND(NS, m) {}\n", kMacro).other_use);
  EXPECT_TRUE(scan_ops_id_text("#ifdef TORCH_EXTENSION_NAME\n#endif\n", kMacro).other_use);
  // The registration macros with another name register under that name, not the ops id.
  EXPECT_TRUE(scan_ops_id_text("TORCH_LIBRARY_EXPAND(my_ops, m) {}\n", kMacro).other_use);
  EXPECT_TRUE(scan_ops_id_text("REGISTER_EXTENSION(TORCH_EXTENSION_NAME_2)\n", kMacro).other_use);
}

TEST(scan_ops_id_text, CommentsStringsAndLongerNamesAreNotUses) {
  auto scan = scan_ops_id_text(
      "/* TORCH_EXTENSION_NAME */\n// REGISTER_EXTENSION(x)\n"
      "const char* s = \"TORCH_EXTENSION_NAME \\\" REGISTER_EXTENSION(y)\";\nint MY_TORCH_EXTENSION_NAME = 1;\n"
      "char c = '\"';\nint TORCH_EXTENSION_NAMES = 2;\n",
      kMacro);
  EXPECT_FALSE(scan.other_use);
  EXPECT_FALSE(scan.registers);
}

TEST(scan_ops_id_text, TvmFfiHasNoRegistrationMacros) {
  auto scan = scan_ops_id_text("TVM_FFI_DLL_EXPORT_TYPED_FUNC(add, add);\nREGISTER_EXTENSION(TVM_FFI_EXTENSION_NAME)\n",
                               "TVM_FFI_EXTENSION_NAME", false);
  EXPECT_TRUE(scan.other_use);
  EXPECT_FALSE(scan.registers);
}

OpsIdScan registering(int register_extension) { return OpsIdScan{false, true, register_extension}; }

TEST(plan_ops_id_use, RegistrationOnlyProjectUsesTheOpsIdUnit) {
  auto use = plan_ops_id_use({{"torch-ext/torch_binding.cpp", registering(1)}, {"k/k.cpp", OpsIdScan{}}}, true);
  EXPECT_TRUE(use.unit);
  EXPECT_TRUE(use.sources.empty());
}

TEST(plan_ops_id_use, RegistrationsInAKernelSourceToo) {
  auto use = plan_ops_id_use({{"torch-ext/torch_binding.cpp", registering(1)}, {"k/k.cu", registering(0)}}, true);
  EXPECT_TRUE(use.unit);
}

TEST(plan_ops_id_use, AnotherUseGivesTheOpsIdToTheSourcesThatNameIt) {
  OpsIdScan other{true, false, 0};
  auto use = plan_ops_id_use(
      {{"torch-ext/torch_binding.cpp", registering(1)}, {"k/a.cpp", other}, {"k/b.cpp", OpsIdScan{}}}, true);
  EXPECT_FALSE(use.unit);
  EXPECT_EQ(use.sources, (std::vector<std::string>{"torch-ext/torch_binding.cpp", "k/a.cpp"}));
}

TEST(plan_ops_id_use, OneRegisterExtensionExactly) {
  EXPECT_FALSE(plan_ops_id_use({{"a.cpp", registering(0)}}, true).unit);
  EXPECT_FALSE(plan_ops_id_use({{"a.cpp", registering(1)}, {"b.cpp", registering(1)}}, true).unit);
  EXPECT_EQ(plan_ops_id_use({{"a.cpp", registering(0)}}, true).sources, (std::vector<std::string>{"a.cpp"}));
}

TEST(plan_ops_id_use, UnitNotPossible) {
  auto use = plan_ops_id_use({{"torch-ext/torch_binding.cpp", registering(1)}, {"k/k.cpp", OpsIdScan{}}}, false);
  EXPECT_FALSE(use.unit);
  EXPECT_EQ(use.sources, (std::vector<std::string>{"torch-ext/torch_binding.cpp"}));
}

class ScanSources : public ::testing::Test {
 protected:
  void SetUp() override {
    project_ = std::filesystem::temp_directory_path() /
               ("kb-ops-id-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(project_);
  }
  void TearDown() override { std::filesystem::remove_all(project_); }
  void write(const std::string& path, const std::string& text) {
    std::filesystem::create_directories((project_ / path).parent_path());
    std::ofstream(project_ / path) << text;
  }
  std::filesystem::path project_;
};

TEST_F(ScanSources, FollowsProjectHeadersAndSkipsHeadersInTheSourceList) {
  // <ops.h> is found in csrc/ (an include directory), "ops_impl.h" next to it; <torch/all.h> is not
  // in the project.
  write("torch-ext/torch_binding.cpp", "#include \"registration.h\"\n#include <ops.h>\nREGISTER_EXTENSION(TORCH_EXTENSION_NAME)\n");
  write("csrc/ops.h", "#pragma once\n#include <torch/all.h>\n#include \"ops_impl.h\"\n");
  write("csrc/ops_impl.h", "inline const char* ns() { return STRINGIFY(TORCH_EXTENSION_NAME); }\n");
  write("k/k.cpp", "#include \"missing.h\"\nint k() { return 1; }\n");
  ProjectIncludeWalker walker(project_, {".", "torch-ext", "csrc"});
  auto scans = scan_ops_id_sources(walker, {"torch-ext/torch_binding.cpp", "torch-ext/torch_binding.h", "k/k.cpp"},
                                   kMacro, true);
  ASSERT_EQ(scans.size(), 2u);
  EXPECT_EQ(scans[0].first, "torch-ext/torch_binding.cpp");
  EXPECT_TRUE(scans[0].second.other_use);
  EXPECT_EQ(scans[0].second.register_extension, 1);
  EXPECT_EQ(scans[1].first, "k/k.cpp");
  EXPECT_FALSE(scans[1].second.other_use);
  EXPECT_FALSE(scans[1].second.registers);
}

TEST_F(ScanSources, ARegistrationHeaderOfTheProjectsOwnKeepsTheMacro) {
  write("torch-ext/torch_binding.cpp", "#include \"registration.h\"\nREGISTER_EXTENSION(TORCH_EXTENSION_NAME)\n");
  write("torch-ext/registration.h", "#define REGISTER_EXTENSION(NAME) PyMODINIT_FUNC CONCAT(PyInit_, NAME)() {}\n");
  ProjectIncludeWalker first(project_, {"."});
  auto own = scan_ops_id_sources(first, {"torch-ext/torch_binding.cpp"}, kMacro, true);
  EXPECT_TRUE(own.at(0).second.other_use);
  // A copy of the builder's own header (create-pyproject writes one) is the generated header.
  write("torch-ext/registration.h", *codegen::render_registration_h());
  ProjectIncludeWalker second(project_, {"."});  // a walker keeps what it read: a new one for the new text
  auto copy = scan_ops_id_sources(second, {"torch-ext/torch_binding.cpp"}, kMacro, true);
  EXPECT_FALSE(copy.at(0).second.other_use);
  EXPECT_TRUE(plan_ops_id_use(copy, true).unit);
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::builder
