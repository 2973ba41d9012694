// Tests of the init scaffold: name derivation, backend selection, golden files (refresh with
// tests/unit/scaffold/refresh-golden), strict templates, writing with `--overwrite` and git.
#include "codegen/scaffold/scaffold.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "codegen/generated_files.h"
#include "codegen/scaffold/git_staging.h"
#include "config/reader.h"
#include "util/fs.h"

namespace kb::scaffold {
namespace {
namespace KB_UNITY_ID {

namespace fs = std::filesystem;
using codegen::GeneratedFiles;
using config::Backend;

TEST(ParseOwnerRepo, RequiresExactlyOneSlash) {
  EXPECT_EQ(parse_owner_repo("org/name")->second, "name");
  for (const char* bad : {"name", "/name", "org/", "a/b/c", ""}) {
    auto r = parse_owner_repo(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().message, "must be <owner>/<repo>");
  }
}

TEST(MakeIdentity, DerivesNames) {
  auto id = make_identity("myorg", "my_fancy-kernel");
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(id->display_name, "my-fancy-kernel");
  EXPECT_EQ(id->python_name, "my_fancy_kernel");
  EXPECT_EQ(id->class_name, "MyFancyKernel");
  EXPECT_EQ(id->repo_id, "myorg/my-fancy-kernel");
}

TEST(MakeIdentity, ValidatesKernelName) {
  auto id = make_identity("myorg", "MyKernel");
  ASSERT_FALSE(id);
  EXPECT_EQ(id.error().message.rfind("Invalid kernel name `MyKernel`. Name must:", 0), 0u) << id.error().message;
  EXPECT_FALSE(make_identity("o", "k"));
}

TEST(ParseScaffoldBackends, AllDefaultsAndDuplicates) {
  EXPECT_EQ(*parse_scaffold_backends({"all"}), scaffold_backends());
  EXPECT_EQ(*parse_scaffold_backends({"xpu", "cpu", "xpu"}), (std::vector<Backend>{Backend::xpu, Backend::cpu}));
#if defined(__APPLE__)
  EXPECT_EQ(*parse_scaffold_backends({}), std::vector<Backend>{Backend::metal});
#else
  EXPECT_EQ(*parse_scaffold_backends({}), std::vector<Backend>{Backend::cuda});
#endif
  EXPECT_FALSE(parse_scaffold_backends({"neuron"}));
  EXPECT_FALSE(parse_scaffold_backends({"gpu"}));
}

ScaffoldOptions options_for(std::vector<Backend> backends) {
  return {make_identity("myorg", "my_kernel").value(), "Apache-2.0", std::move(backends)};
}

std::vector<std::string> paths(const GeneratedFiles& files) {
  std::vector<std::string> out;
  for (const auto& [path, content] : files) out.push_back(path);
  return out;
}

// Compares against tests/unit/scaffold/golden/<name>/, or rewrites it when KB_REFRESH_GOLDEN=1.
void expect_golden(const std::string& name, const GeneratedFiles& files) {
  fs::path dir = fs::path(KB_TEST_DATA_DIR) / "unit" / "scaffold" / "golden" / name;
  const char* refresh = std::getenv("KB_REFRESH_GOLDEN");
  if (refresh && std::string(refresh) == "1") {
    fs::remove_all(dir);
    for (const auto& [path, content] : files) {
      fs::create_directories((dir / path).parent_path());
      ASSERT_TRUE(util::write_file_atomic(dir / path, content));
    }
    return;
  }
  EXPECT_EQ(util::list_files_recursive(dir), paths(files)) << "run tests/unit/scaffold/refresh-golden";
  for (const auto& [path, content] : files) {
    auto golden = util::read_file(dir / path);
    ASSERT_TRUE(golden) << path;
    EXPECT_EQ(content, *golden) << path << " differs from the golden file; run tests/unit/scaffold/refresh-golden";
  }
}

TEST(RenderScaffold, GoldenAllBackends) {
  auto files = render_scaffold(options_for(scaffold_backends()));
  ASSERT_TRUE(files) << files.error().message;
  expect_golden("all-backends", *files);
}

TEST(RenderScaffold, GoldenCudaOnly) {
  auto files = render_scaffold(options_for({Backend::cuda}));
  ASSERT_TRUE(files) << files.error().message;
  expect_golden("cuda", *files);
}

TEST(RenderScaffold, FilesPerBackend) {
  auto rocm = paths(render_scaffold(options_for({Backend::rocm})).value());
  EXPECT_NE(std::find(rocm.begin(), rocm.end(), "my_kernel_cuda/my_kernel.cu"), rocm.end());
  EXPECT_EQ(std::find(rocm.begin(), rocm.end(), "my_kernel_cpu/my_kernel_cpu.cpp"), rocm.end());
  auto cpu = paths(render_scaffold(options_for({Backend::cpu})).value());
  for (const char* expected : {".gitattributes", ".gitignore", "CARD.md", "benchmarks/benchmark.py", "build.toml",
                               "example.py", "flake.nix", "my_kernel_cpu/my_kernel_cpu.cpp", "tests/__init__.py",
                               "tests/test_my_kernel.py", "torch-ext/my_kernel/__init__.py",
                               "torch-ext/torch_binding.cpp", "torch-ext/torch_binding.h"}) {
    EXPECT_NE(std::find(cpu.begin(), cpu.end(), expected), cpu.end()) << expected;
  }
  EXPECT_EQ(cpu.size(), 13u);
}

// Every template renders in strict mode (an undefined name would be an error) for each backend
// alone, the shapes the goldens do not cover.
TEST(RenderScaffold, EveryBackendAloneRenders) {
  for (Backend backend : scaffold_backends()) {
    auto files = render_scaffold(options_for({backend}));
    EXPECT_TRUE(files) << config::to_string(backend) << ": " << files.error().message;
  }
}

TEST(RenderScaffold, BuildTomlParsesAndValidates) {
  for (const auto& backends : {scaffold_backends(), std::vector<Backend>{Backend::cuda}, std::vector<Backend>{Backend::metal}}) {
    auto files = render_scaffold(options_for(backends)).value();
    auto it = files.find("build.toml");
    ASSERT_NE(it, files.end());
    config::ParseOutcome outcome = config::parse_build_toml(it->second, "build.toml");
    ASSERT_TRUE(outcome.parsed) << config::render_diagnostics(outcome.errors, it->second, "error");
    EXPECT_TRUE(outcome.warnings.empty()) << config::render_diagnostics(outcome.warnings, it->second, "warning");
    const config::BuildConfig& c = outcome.parsed->config;
    EXPECT_EQ(c.general.name, "my-kernel");
    EXPECT_EQ(c.general.backends, backends);
    for (Backend b : backends) EXPECT_TRUE(c.is_arch_backend(b)) << config::to_string(b);
    EXPECT_EQ(c.general.hub->repo_id, "myorg/my-kernel");
  }
}

TEST(WriteGeneratedFiles, InitRefusesExistingFilesAndWritesNothing) {
  util::TempDir tmp;
  auto files = render_scaffold(options_for({Backend::cpu})).value();
  ASSERT_TRUE(util::write_file_atomic(tmp.path() / "build.toml", "mine"));
  ASSERT_TRUE(util::write_file_atomic(tmp.path() / "flake.nix", "mine too"));
  auto status = codegen::write_generated_files(tmp.path(), files, false, "--overwrite");
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message,
            "File(s) already exists in target directory: build.toml, flake.nix\nUse `--overwrite` to overwrite.");
  EXPECT_EQ(util::list_files_recursive(tmp.path()), (std::vector<std::string>{"build.toml", "flake.nix"}));
  EXPECT_EQ(*util::read_file(tmp.path() / "build.toml"), "mine");
}

TEST(WriteGeneratedFiles, InitOverwriteReplacesOnlyScaffoldFiles) {
  util::TempDir tmp;
  auto files = render_scaffold(options_for({Backend::cpu})).value();
  ASSERT_TRUE(util::write_file_atomic(tmp.path() / "build.toml", "mine"));
  ASSERT_TRUE(util::write_file_atomic(tmp.path() / "notes.txt", "keep"));
  ASSERT_TRUE(codegen::write_generated_files(tmp.path(), files, true, "--overwrite"));
  EXPECT_NE(*util::read_file(tmp.path() / "build.toml"), "mine");
  EXPECT_EQ(*util::read_file(tmp.path() / "notes.txt"), "keep");
  EXPECT_EQ(util::list_files_recursive(tmp.path()).size(), files.size() + 1);
}

TEST(StageInGit, InitializesAndStages) {
  util::TempDir tmp;
  auto files = render_scaffold(options_for({Backend::cpu})).value();
  ASSERT_TRUE(codegen::write_generated_files(tmp.path(), files, false, "--overwrite"));
  auto outcome = stage_in_git(tmp.path(), files);
  ASSERT_TRUE(outcome) << outcome.error().message;
  if (!outcome->warnings.empty()) GTEST_SKIP() << outcome->warnings[0];
  EXPECT_TRUE(outcome->initialized);
  EXPECT_TRUE(fs::is_directory(tmp.path() / ".git"));
  // A second run finds the repository and does not re-initialize it.
  auto again = stage_in_git(tmp.path(), files);
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->initialized);
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::scaffold
