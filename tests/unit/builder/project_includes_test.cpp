// The project code a source reads (project_includes.h): include directives, the walk through the
// project's headers, and the bytes the start order of a first build weighs sources by.
#include "builder/project_includes.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>

#include "util/fs.h"

namespace kb::builder {
namespace {
namespace KB_UNITY_ID {

TEST(include_directives, InOrder) {
  EXPECT_EQ(include_directives("#include <torch/all.h>\n#include \"a.h\"\n  #  include \"sub/b.h\" // x\nint x;\n"),
            (std::vector<IncludeDirective>{{"torch/all.h", false}, {"a.h", true}, {"sub/b.h", true}}));
}

TEST(compiled_source, TranslationUnitsNotHeaders) {
  for (const char* path : {"k/k.cpp", "k/k.cc", "k/k.cxx", "k/k.c", "k/k.cu", "k/k.hip", "k/k.mm"}) {
    EXPECT_TRUE(compiled_source(path)) << path;
  }
  for (const char* path : {"k/k.h", "k/k.cuh", "k/k.hpp", "k/k.metal", "k/k.py"}) EXPECT_FALSE(compiled_source(path)) << path;
}

// Writes `text` to `path` under `root`, making its directories.
void write(const std::filesystem::path& root, const std::string& path, const std::string& text) {
  std::filesystem::create_directories((root / path).parent_path());
  ASSERT_TRUE(util::write_file_atomic(root / path, text));
}

// A temporary project holding `files` (path in the project, text).
std::unique_ptr<util::TempDir> project_with(const std::vector<std::pair<std::string, std::string>>& files) {
  auto project = std::make_unique<util::TempDir>("kb-project-includes");
  for (const auto& [path, text] : files) write(project->path(), path, text);
  return project;
}

TEST(ProjectIncludeWalker, VisitsEachProjectHeaderOnceAndStopsWhereTheVisitorSays) {
  // "a.h" next to the source, <b.h> in the include directory inc/; a.h and b.h include each other,
  // and both include "common.h"; <torch/all.h> and "missing.h" are not in the project.
  auto temp = project_with({
      {"k/k.cu", "#include \"a.h\"\n#include <b.h>\n#include <torch/all.h>\n#include \"missing.h\"\n"},
      {"k/a.h", "#pragma once\n#include <b.h>\n#include \"common.h\"\n"},
      {"inc/b.h", "#pragma once\n#include \"../k/a.h\"\n#include \"stop.h\"\n"},
      {"inc/stop.h", "#include \"beyond.h\"\n"},
      {"inc/beyond.h", "int beyond;\n"},
      {"k/common.h", "int common;\n"}});
  const auto& project = temp->path();
  std::vector<std::pair<std::string, int>> visited;
  ProjectIncludeWalker walker(project, {"inc"});
  walker.walk(project / "k/k.cu", [&](const std::filesystem::path& file, const std::string&, int depth) {
    visited.emplace_back(file.lexically_relative(project).lexically_normal().generic_string(), depth);
    return file.filename() != "stop.h";
  });
  EXPECT_EQ(visited, (std::vector<std::pair<std::string, int>>{
                         {"k/k.cu", 0}, {"k/a.h", 1}, {"inc/b.h", 2}, {"inc/stop.h", 3}, {"k/common.h", 2}}));
}

TEST(ProjectIncludeWalker, ReadsEachFileOnceForEverySource) {
  auto temp = project_with(
      {{"a.cu", "#include \"shared.h\"\n"}, {"b.cu", "#include \"shared.h\"\n"}, {"shared.h", "int first;\n"}});
  const auto& project = temp->path();
  ProjectIncludeWalker walker(project, {});
  std::vector<std::string> texts;
  auto collect = [&](const std::filesystem::path& file, const std::string& text, int) {
    if (file.filename() == "shared.h") texts.push_back(text);
    return true;
  };
  walker.walk(project / "a.cu", collect);
  write(project, "shared.h", "int second;\n");  // not read again: the walker has it
  walker.walk(project / "b.cu", collect);
  EXPECT_EQ(texts, (std::vector<std::string>{"int first;\n", "int first;\n"}));
}

TEST(project_code, CountsTheSourceAndItsProjectHeadersOnce) {
  auto temp = project_with({{"k/heavy.cu", "#include \"kernel.cuh\"\n#include \"kernel.cuh\"\n"},  // 2 x 22 bytes
                            {"k/kernel.cuh", std::string(1000, 'h')},
                            {"k/light.cu", "#include <cuda_runtime.h>\n"},  // 26 bytes
                            {"k/ops.h", "#include \"kernel.cuh\"\n"}});
  const auto& project = temp->path();
  ProjectIncludeWalker walker(project, {"."});
  auto code = project_code(walker, {"k/light.cu", "k/ops.h", "k/heavy.cu", "k/gone.cpp"});
  EXPECT_EQ(code, (std::vector<std::pair<std::string, ProjectCode>>{
                      {"k/light.cu", {26, false}}, {"k/heavy.cu", {44 + 1000, false}}, {"k/gone.cpp", {0, false}}}));
}

TEST(project_code, SeesTorchsHeadersIncludedByTheSourceOrAProjectHeader) {
  auto temp = project_with({{"k/binding.cpp", "#include \"binding.h\"\n"},
                            {"k/binding.h", "#pragma once\n#include <torch/library.h>\n"},
                            {"k/host.cpp", "#include <ATen/cuda/CUDAContext.h>\n"},
                            {"k/guard.cpp", "#include \"c10/guard.h\"\n"},  // a torch header by name, quoted
                            {"k/kernel.cu", "#include <cuda_runtime.h>\n#include \"torchlike/x.h\"\n"},
                            {"k/plain.cpp", "// #include <torch/torch.h> in a comment is not read\nint x;\n"}});
  ProjectIncludeWalker walker(temp->path(), {"."});
  std::vector<std::string> with_torch;
  for (const auto& [source, code] : project_code(walker, {"k/binding.cpp", "k/host.cpp", "k/guard.cpp", "k/kernel.cu", "k/plain.cpp"})) {
    if (code.torch) with_torch.push_back(source);
  }
  EXPECT_EQ(with_torch, (std::vector<std::string>{"k/binding.cpp", "k/host.cpp", "k/guard.cpp"}));
  EXPECT_TRUE(torch_header("torch/torch.h"));
  EXPECT_TRUE(torch_header("c10/cuda/CUDAGuard.h"));
  EXPECT_FALSE(torch_header("torchvision/ops.h"));
  EXPECT_FALSE(torch_header("cuda_runtime.h"));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::builder
