// Tests of the torch header cache's pure parts: which sources use it, the compile command of its
// entry (what is specific to a project is dropped, everything else kept), and ccache settings.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>

#include "builder/torch_pch.h"
#include "codegen/ops_py.h"
#include "codegen/variant_project.h"
#include "config/reader.h"
#include "util/fs.h"

using namespace kb::builder;
namespace fs = std::filesystem;

TEST(leading_includes, SkipCommentsPragmaOnceAndOneIncludeGuard) {
  auto first = leading_includes("// licence\n/* block\n comment */\n#pragma once\n\n#include <torch/all.h>\n#include <x.h>\n");
  ASSERT_EQ(first.includes.size(), 2u);
  EXPECT_EQ(first.includes[0].name, "torch/all.h");
  EXPECT_FALSE(first.includes[0].quoted);
  auto guarded = leading_includes("#ifndef MY_H\n#define MY_H\n#include \"ops.h\" // ops\n#endif\n");
  ASSERT_EQ(guarded.includes.size(), 1u);
  EXPECT_EQ(guarded.includes[0].name, "ops.h");
  EXPECT_TRUE(guarded.includes[0].quoted);
  EXPECT_EQ(leading_includes("  #  include <ATen/Dispatch.h>\n").includes.size(), 1u);
}

TEST(leading_includes, NoneWhenAnythingElseComesFirst) {
  // A macro defined before the torch include could change what the headers declare.
  EXPECT_TRUE(leading_includes("#define TORCH_FOO 1\n#include <torch/all.h>\n").includes.empty());
  EXPECT_TRUE(leading_includes("#ifdef USE_X\n#include <torch/all.h>\n#endif\n").includes.empty());
  EXPECT_TRUE(leading_includes("#ifndef A\n#define A\n#ifndef B\n#define B\n#include <torch/all.h>\n").includes.empty());
  EXPECT_TRUE(leading_includes("int x;\n#include <torch/all.h>\n").includes.empty());
  EXPECT_TRUE(leading_includes("// only a comment\n").includes.empty());
  EXPECT_TRUE(leading_includes("/* unterminated").includes.empty());
}

TEST(is_precompiled_header, OnlyTorchTorchH) {
  EXPECT_TRUE(is_precompiled_header("torch/torch.h"));
  // Lighter torch headers: the precompiled <torch/torch.h> would add the rest of torch to them.
  EXPECT_FALSE(is_precompiled_header("torch/library.h"));
  EXPECT_FALSE(is_precompiled_header("torch/all.h"));
  EXPECT_FALSE(is_precompiled_header("ATen/Dispatch.h"));
  EXPECT_FALSE(is_precompiled_header("c10/cuda/CUDAGuard.h"));
  EXPECT_FALSE(is_precompiled_header("Python.h"));
  EXPECT_FALSE(is_precompiled_header("torch_binding.h"));
}

TEST(leading_includes, AllOfThemUntilAnythingElse) {
  auto header = leading_includes("#pragma once\n// why\n#include <ATen/Parallel.h>\n\n#include \"ops.h\"\n");
  ASSERT_EQ(header.includes.size(), 2u);
  EXPECT_EQ(header.includes[0].name, "ATen/Parallel.h");
  EXPECT_TRUE(header.includes[1].quoted);
  EXPECT_TRUE(header.complete);
  auto source = leading_includes("#include <torch/library.h>\nvoid f();\n#include <torch/torch.h>\n");
  ASSERT_EQ(source.includes.size(), 1u);
  EXPECT_FALSE(source.complete);
  EXPECT_FALSE(leading_includes("#include <a.h>\n#pragma once\n").complete);
  // An include guard left open (its #endif is something else) is not a header of includes only.
  auto guarded = leading_includes("#ifndef G\n#define G\n#include <torch/torch.h>\n#endif\n");
  EXPECT_EQ(guarded.includes.size(), 1u);
  EXPECT_FALSE(guarded.complete);
}

TEST(torch_header_sources, FollowsAPrologueOfTorchHeadersThroughProjectHeaders) {
  fs::path project = fs::temp_directory_path() / ("kb-pch-test-" + std::to_string(::getpid()));
  fs::remove_all(project);
  fs::create_directories(project / "torch-ext");
  fs::create_directories(project / "k");
  fs::create_directories(project / "own");
  fs::create_directories(project / "copy");
  auto write = [&](const std::string& path, const std::string& text) {
    ASSERT_TRUE(kb::util::write_file_atomic(project / path, text));
  };
  write("torch-ext/binding.cpp", "#include <torch/library.h>\n");
  write("torch-ext/ops.h", "#pragma once\n#include <torch/torch.h>\nvoid op();\n");
  write("torch-ext/light.h", "#pragma once\n#include <ATen/core/Tensor.h>\nvoid light();\n");
  write("k/a.cpp", "#include \"../torch-ext/ops.h\"\n");
  write("k/b.cpp", "#include \"ops.h\"\n");  // via torch-ext/
  write("k/prologue.cpp", "#include <ATen/Dispatch.h>\n#include <ATen/Parallel.h>\n#include <torch/torch.h>\n");
  // The binding pattern: the builder's registration.h (not in the project) is passed over.
  write("k/registration.cpp", "#include <torch/library.h>\n\n#include \"registration.h\"\n#include \"ops.h\"\n");
  write("k/all.h", "#include <ATen/Parallel.h>\n#include <c10/util/Half.h>\n");  // includes only
  write("k/via.cpp", "#include \"all.h\"\n#include <torch/torch.h>\n");
  write("k/light.cpp", "#include <ATen/core/Tensor.h>\n#include \"light.h\"\nint x;\n#include <torch/torch.h>\n");
  write("k/code_first.cpp", "#include <ATen/Parallel.h>\nint x;\n#include <torch/torch.h>\n");
  write("k/plain.cpp", "#include <vector>\n#include <torch/all.h>\n#include <torch/torch.h>\n");
  write("k/defines.cpp", "#define N 4\n#include <torch/torch.h>\n");
  write("k/kernel.cu", "#include <torch/torch.h>\n");
  // A project's own registration.h is followed like any project header (here: <Python.h> first),
  // unless it is a verbatim copy of the builder's (create-pyproject writes one into torch-ext/).
  write("own/registration.h", "#pragma once\n#include <Python.h>\n");
  write("own/own.cpp", "#include <torch/library.h>\n#include \"registration.h\"\n#include \"../torch-ext/ops.h\"\n");
  auto builder_registration = kb::codegen::render_registration_h();
  ASSERT_TRUE(builder_registration);
  write("copy/registration.h", *builder_registration);
  write("copy/copy.cpp", "#include <torch/library.h>\n#include \"registration.h\"\n#include \"../torch-ext/ops.h\"\n");
  auto found = torch_header_sources(project,
                                    {"torch-ext/binding.cpp", "torch-ext/ops.h", "k/a.cpp", "k/b.cpp", "k/prologue.cpp",
                                     "k/registration.cpp", "k/via.cpp", "k/light.cpp", "k/code_first.cpp",
                                     "k/plain.cpp", "k/defines.cpp", "k/kernel.cu", "k/missing.cpp", "own/own.cpp",
                                     "copy/copy.cpp"},
                                    {".", "torch-ext"});
  EXPECT_EQ(found, (std::vector<std::string>{"k/a.cpp", "k/b.cpp", "k/prologue.cpp", "k/registration.cpp",
                                             "k/via.cpp", "copy/copy.cpp"}));
  fs::remove_all(project);
}

TEST(split_command, QuotesAndEscapes) {
  auto words = split_command(R"(/usr/bin/c++ -DA="x y" -I'/a b' -DB=\"q\" plain)");
  ASSERT_TRUE(words);
  EXPECT_EQ(*words, (std::vector<std::string>{"/usr/bin/c++", "-DA=x y", "-I/a b", "-DB=\"q\"", "plain"}));
  EXPECT_FALSE(split_command("c++ \"open"));
}

TEST(pch_compile_args, DropsWhatIsSpecificToAProject) {
  std::vector<std::string> tu = {"/usr/bin/ccache", "/usr/bin/c++", "-DCPU_KERNEL", "-DTORCH_EXTENSION_NAME=_relu_cpu_1",
                                 "-D_relu_cpu_1_EXPORTS", "-I/p/gen", "-I/p", "-isystem", "/t/include", "-O3", "-fPIC",
                                 "-ffile-prefix-map=/p=.", "-ffile-prefix-map=/opt=/o", "-std=c++17", "-include",
                                 "/p/build/torch-pch/torch_pch.h", "-include", "/p/other.h", "-Winvalid-pch",
                                 "-fpch-preprocess", "-MD", "-MT", "x.o", "-MF", "x.o.d", "-o", "x.o", "-c", "/p/a.cpp"};
  ProjectSpecifics specifics{"/p/build/torch-pch/torch_pch.h", "/p", "_relu_cpu_1", "/usr/bin/ccache"};
  auto args = pch_compile_args(tu, specifics);
  ASSERT_TRUE(args) << args.error().message;
  EXPECT_EQ(*args, (std::vector<std::string>{"/usr/bin/c++", "-DCPU_KERNEL", "-isystem", "/t/include", "-O3", "-fPIC",
                                             "-ffile-prefix-map=/opt=/o", "-std=c++17", "-include", "/p/other.h"}));
  // Two projects with the same flags share one entry.
  std::vector<std::string> other = tu;
  for (auto& arg : other) {
    if (arg == "-DTORCH_EXTENSION_NAME=_relu_cpu_1") arg = "-DTORCH_EXTENSION_NAME=_gelu_cpu_2";
    if (arg == "-D_relu_cpu_1_EXPORTS") arg = "-D_gelu_cpu_2_EXPORTS";
  }
  EXPECT_EQ(*pch_compile_args(other, {"/p/build/torch-pch/torch_pch.h", "/p", "_gelu_cpu_2", "/usr/bin/ccache"}), *args);
  EXPECT_FALSE(pch_compile_args({"/usr/bin/c++", "-shared", "-o", "x.so"}, specifics));
}

TEST(ccache_sloppiness, AddsPchSettingsOnce) {
  EXPECT_EQ(ccache_sloppiness(""), "pch_defines,time_macros");
  EXPECT_EQ(ccache_sloppiness("include_file_mtime, time_macros"), "include_file_mtime,time_macros,pch_defines");
}

TEST(header_cache_dir, UnderXdgCacheHome) {
  ::setenv("XDG_CACHE_HOME", "/x/cache", 1);
  EXPECT_EQ(header_cache_dir(), fs::path("/x/cache/kernel-builder/torch-pch"));
}

namespace {
kb::config::BuildConfig parse_config(const std::string& text) {
  auto outcome = kb::config::parse_build_toml(text, "build.toml");
  EXPECT_TRUE(outcome.parsed);
  return outcome.parsed->config;
}

const char* two_units = R"([general]
name = "addone"
version = 1
edition = 5
license = "Apache-2.0"
backends = ["cpu"]

[torch]
src = ["torch-ext/torch_binding.cpp"]

[kernel.plain]
backend = "cpu"
depends = ["torch"]
src = ["plain/plain.cpp"]

[kernel.flagged]
backend = "cpu"
depends = ["torch"]
src = ["flagged/flagged.cpp"]
cxx-flags = ["-O1"]
)";
}  // namespace

TEST(background_precompile_lock, UnderXdgRuntimeDirElseTmpDir) {
  fs::path dir = fs::temp_directory_path() / ("kb-pch-lock-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ::setenv("XDG_RUNTIME_DIR", dir.c_str(), 1);
  EXPECT_EQ(background_precompile_lock(), dir / "kernel-builder" / "precompile.lock");
  ::setenv("XDG_RUNTIME_DIR", (dir / "missing").c_str(), 1);
  ::setenv("TMPDIR", "/x/tmp", 1);
  EXPECT_EQ(background_precompile_lock(),
            fs::path("/x/tmp") / ("kernel-builder-" + std::to_string(::getuid())) / "precompile.lock");
  ::unsetenv("TMPDIR");
  ::unsetenv("XDG_RUNTIME_DIR");
  fs::remove_all(dir);
}

TEST(variant_project, ForceIncludesTheHeaderCacheOnlyWithoutPerSourceOptions) {
  auto config = parse_config(two_units);
  kb::codegen::VariantProjectInput input;
  input.config = &config;
  input.ops_id = "_addone_cpu_abc";
  input.torch = {2, 11};
  auto without = kb::codegen::render_sources(input);
  ASSERT_TRUE(without);
  EXPECT_EQ(without->find("KB_TORCH_PCH"), std::string::npos);
  input.torch_header_sources = {"torch-ext/torch_binding.cpp", "plain/plain.cpp", "flagged/flagged.cpp"};
  auto with = kb::codegen::render_sources(input);
  ASSERT_TRUE(with);
  auto block = with->substr(with->find("if(KB_TORCH_PCH AND CMAKE_CXX_COMPILER_ID STREQUAL \"GNU\")"));
  EXPECT_NE(block.find("\"${KB_PROJECT_DIR}/torch-ext/torch_binding.cpp\""), std::string::npos);
  EXPECT_NE(block.find("\"${KB_PROJECT_DIR}/plain/plain.cpp\""), std::string::npos);
  // A precompiled header must be built with its users' options: flagged sources keep parsing.
  EXPECT_EQ(block.find("flagged.cpp"), std::string::npos);
  EXPECT_NE(block.find("COMPILE_OPTIONS -include \"${KB_TORCH_PCH}\" -Winvalid-pch -fpch-preprocess"), std::string::npos);
}

namespace {

// Waits (at most 20 s) until nothing holds the lock files of the header cache under `root`.
void wait_for_fills(const fs::path& root) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (entry.path().extension() != ".lock") continue;
    int fd = ::open(entry.path().c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    int held = -1;
    for (int i = 0; i < 200 && held != 0; ++i) {
      held = ::flock(fd, LOCK_EX | LOCK_NB);
      if (held != 0) ::usleep(100 * 1000);
    }
    ::close(fd);
    ASSERT_EQ(held, 0) << "the background precompile still holds " << entry.path();
  }
}

}  // namespace

// A missing entry is not waited for: the build compiles without it (empty in-tree header, no .gch
// link) while a detached process builds it; the next build links it.
TEST(prepare_torch_pch, BuildsAMissingEntryInTheBackground) {
  fs::path dir = fs::temp_directory_path() / ("kb-pch-fill-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "cmake-build");
  ::setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);
  ::setenv("XDG_RUNTIME_DIR", dir.c_str(), 1);  // its own per-user precompile lock
  // A compiler whose precompile waits for `go`: prepare_torch_pch must return before it finishes.
  fs::path go = dir / "go";
  fs::path compiler = dir / "cc";
  ASSERT_TRUE(kb::util::write_file_atomic(compiler, "#!/bin/sh\n"
                                             "if [ \"$1\" = -dumpfullversion ]; then echo 12.2.0; exit 0; fi\n"
                                             "for i in $(seq 200); do [ -f '" + go.string() + "' ] && break; sleep 0.1; done\n"
                                             "[ -f '" + go.string() + "' ] || exit 3\n"
                                             "while [ $# -gt 1 ]; do [ \"$1\" = -o ] && echo gch > \"$2\"; shift; done\n"));
  fs::permissions(compiler, fs::perms::owner_all);
  fs::path header = dir / "work" / "torch_pch.h";
  std::string cc = compiler.string();
  ASSERT_TRUE(kb::util::write_file_atomic(dir / "cmake-build" / "compile_commands.json",
                                   "[{\"command\": \"" + cc + " -O2 -include " + header.string() + " -o CMakeFiles/a.o -c a.cpp\","
                                   "  \"output\": \"" + (dir / "cmake-build" / "CMakeFiles" / "a.o").string() + "\"},"
                                   " {\"command\": \"" + cc + " -O2 -include " + header.string() + " -o CMakeFiles/c.o -c c.cpp\"},"
                                   " {\"command\": \"" + cc + " -O2 -o CMakeFiles/b.cu.o -c b.cu\"}]"));
  ProjectSpecifics specifics{header, dir, "t", std::nullopt};
  auto first = prepare_torch_pch(dir / "cmake-build", specifics, {"2.11.0", dir}, 2);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_FALSE(first->used);
  EXPECT_TRUE(first->filling);
  EXPECT_FALSE(fs::exists(header.string() + ".gch"));
  EXPECT_EQ(*kb::util::read_file(header), "// kernel-builder's torch header cache is not used.\n");
  fs::path root = dir / "cache" / "kernel-builder" / "torch-pch";
  EXPECT_FALSE(fs::exists(root / first->key));

  // While it is being built, another build does not wait for it either, nor start a second one.
  auto meanwhile = prepare_torch_pch(dir / "cmake-build", specifics, {"2.11.0", dir}, 2);
  ASSERT_TRUE(meanwhile);
  EXPECT_FALSE(meanwhile->used);
  EXPECT_FALSE(meanwhile->filling);
  ASSERT_TRUE(meanwhile->note);
  EXPECT_NE(meanwhile->note->find("being built by another build"), std::string::npos);

  ASSERT_TRUE(kb::util::write_file_atomic(go, ""));
  wait_for_fills(root);
  EXPECT_TRUE(fs::exists(root / first->key / "torch_pch.h.gch"));
  EXPECT_TRUE(fs::exists(root / first->key / "command"));

  // A build directory compiled without the cache switches to it when its users fit in one wave.
  ASSERT_TRUE(kb::util::write_file_atomic(dir / "cmake-build" / ".ninja_log", "# ninja log v5\n1\t2\t0\ta.o\t0\n"));
  auto kept = prepare_torch_pch(dir / "cmake-build", specifics, {"2.11.0", dir}, 1);
  ASSERT_TRUE(kept);
  EXPECT_FALSE(kept->used);
  EXPECT_FALSE(kept->filling);
  // ... and only in a build that recompiles one of them anyway (asked with their objects).
  std::vector<std::string> asked;
  auto none_out_of_date = [&asked](const std::vector<std::string>& objects) {
    asked = objects;
    return false;
  };
  auto untouched = prepare_torch_pch(dir / "cmake-build", specifics, {"2.11.0", dir}, 2, none_out_of_date);
  ASSERT_TRUE(untouched);
  EXPECT_FALSE(untouched->used);
  EXPECT_EQ(asked, (std::vector<std::string>{"CMakeFiles/a.o", "CMakeFiles/c.o"}));
  EXPECT_EQ(*kb::util::read_file(header), "// kernel-builder's torch header cache is not used.\n");
  auto second = prepare_torch_pch(dir / "cmake-build", specifics, {"2.11.0", dir}, 2,
                                  [](const std::vector<std::string>&) { return true; });
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->used);
  EXPECT_FALSE(second->filling);
  EXPECT_EQ(fs::read_symlink(header.string() + ".gch"), root / first->key / "torch_pch.h.gch");
  EXPECT_EQ(*kb::util::read_file(header), torch_pch_header_text());
  fs::remove_all(dir);
}

// A failed precompile leaves no entry, only its log (<key>.failed.log), and releases the lock.
TEST(prepare_torch_pch, AFailedPrecompileLeavesItsLog) {
  fs::path dir = fs::temp_directory_path() / ("kb-pch-fail-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "cmake-build");
  ::setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);
  ::setenv("XDG_RUNTIME_DIR", dir.c_str(), 1);  // its own per-user precompile lock
  fs::path compiler = dir / "cc";
  ASSERT_TRUE(kb::util::write_file_atomic(compiler, "#!/bin/sh\n"
                                             "if [ \"$1\" = -dumpfullversion ]; then echo 12.2.0; exit 0; fi\n"
                                             "echo 'torch.h: no such file' >&2; exit 1\n"));
  fs::permissions(compiler, fs::perms::owner_all);
  fs::path header = dir / "work" / "torch_pch.h";
  ASSERT_TRUE(kb::util::write_file_atomic(dir / "cmake-build" / "compile_commands.json",
                                   "[{\"command\": \"" + compiler.string() + " -include " + header.string() +
                                   " -o a.o -c a.cpp\"}]"));
  ProjectSpecifics specifics{header, dir, "t", std::nullopt};
  auto first = prepare_torch_pch(dir / "cmake-build", specifics, {"2.11.0", dir}, 2);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(first->filling);
  fs::path root = dir / "cache" / "kernel-builder" / "torch-pch";
  wait_for_fills(root);
  EXPECT_FALSE(fs::exists(root / first->key));
  auto log = kb::util::read_file(root / (first->key + ".failed.log"));
  ASSERT_TRUE(log);
  EXPECT_NE(log->find("no such file"), std::string::npos);
  fs::remove_all(dir);
}
