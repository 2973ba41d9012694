// The project code a source reads (project_includes.h): include directives, the walk through the
// project's headers, and the bytes the start order of a first build weighs sources by.
#include "builder/project_includes.h"

#include <gtest/gtest.h>

#include <filesystem>

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

TEST(walk_project_includes, VisitsEachProjectHeaderOnceAndStopsWhereTheVisitorSays) {
  util::TempDir temp("kb-project-includes");
  const auto& project = temp.path();
  // "a.h" next to the source, <b.h> in the include directory inc/; a.h and b.h include each other,
  // and both include "common.h"; <torch/all.h> and "missing.h" are not in the project.
  write(project, "k/k.cu", "#include \"a.h\"\n#include <b.h>\n#include <torch/all.h>\n#include \"missing.h\"\n");
  write(project, "k/a.h", "#pragma once\n#include <b.h>\n#include \"common.h\"\n");
  write(project, "inc/b.h", "#pragma once\n#include \"../k/a.h\"\n#include \"stop.h\"\n");
  write(project, "inc/stop.h", "#include \"beyond.h\"\n");
  write(project, "inc/beyond.h", "int beyond;\n");
  write(project, "k/common.h", "int common;\n");
  std::vector<std::pair<std::string, int>> visited;
  walk_project_includes(project, {"inc"}, project / "k/k.cu", [&](const std::filesystem::path& file,
                                                                     const std::string&, int depth) {
    visited.emplace_back(file.lexically_relative(project).lexically_normal().generic_string(), depth);
    return file.filename() != "stop.h";
  });
  EXPECT_EQ(visited, (std::vector<std::pair<std::string, int>>{
                         {"k/k.cu", 0}, {"k/a.h", 1}, {"inc/b.h", 2}, {"inc/stop.h", 3}, {"k/common.h", 2}}));
}

TEST(project_code_bytes, CountTheSourceAndItsProjectHeadersOnce) {
  util::TempDir temp("kb-project-includes");
  const auto& project = temp.path();
  const std::string header(1000, 'h');
  write(project, "k/heavy.cu", "#include \"kernel.cuh\"\n#include \"kernel.cuh\"\n");  // 2 x 22 bytes
  write(project, "k/kernel.cuh", header);
  write(project, "k/light.cu", "#include <cuda_runtime.h>\n");  // 26 bytes
  write(project, "k/ops.h", "#include \"kernel.cuh\"\n");
  auto bytes = project_code_bytes(project, {"k/light.cu", "k/ops.h", "k/heavy.cu", "k/gone.cpp"}, {"."});
  EXPECT_EQ(bytes, (std::vector<std::pair<std::string, std::uintmax_t>>{
                       {"k/light.cu", 26}, {"k/heavy.cu", 44 + 1000}, {"k/gone.cpp", 0}}));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::builder
