// Tests of toolchain probing output parsing and nvcc version detection.
#include <gtest/gtest.h>

#include "builder/builder.h"
#include "builder/toolchain.h"
#include "util/fs.h"

using namespace kb::builder;

namespace {
const char* probe = R"({"format_version": 1, "python_version": "3.11.7", "python_include": "/inc",
  "machine": "x86_64", "system": "Linux", "torch_version": "2.11.0+cu130", "cxx11_abi": true,
  "cuda": "13.0", "hip": null, "xpu": null, "cmake_prefix_path": "/t/share/cmake",
  "include_dirs": ["/t/include", "/t/include/api"], "library_dirs": ["/t/lib"], "torch_dir": "/t",
  "nvcc_flags": ["-D__CUDA_NO_HALF_OPERATORS__", "--expt-relaxed-constexpr"]})";
}

TEST(parse_probe_output, ReadsTorchFacts) {
  auto t = parse_probe_output(probe, "/venv/bin/python");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->torch_version, "2.11.0+cu130");
  EXPECT_EQ(t->torch_major_minor().to_string(), "2.11");
  EXPECT_EQ(t->torch_cuda, "13.0");
  EXPECT_FALSE(t->torch_hip);
  EXPECT_EQ(t->include_dirs.size(), 2u);
  EXPECT_EQ(t->library_dirs, std::vector<std::string>{"/t/lib"});
  EXPECT_EQ(t->missing_for(kb::config::Backend::cpu), std::nullopt);
  EXPECT_TRUE(t->missing_for(kb::config::Backend::cuda));  // no nvcc attached by the parser
  EXPECT_TRUE(t->missing_for(kb::config::Backend::rocm));
}

TEST(parse_probe_output, RefusesPreCxx11AbiAndMissingTorch) {
  std::string old_abi = probe;
  old_abi.replace(old_abi.find("\"cxx11_abi\": true"), 17, "\"cxx11_abi\": false");
  auto t = parse_probe_output(old_abi, "/p");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("not built with the C++11 ABI"), std::string::npos);
  auto none = parse_probe_output(R"({"torch_error": "ModuleNotFoundError: No module named 'torch'"})", "/p");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "Python interpreter `/p` cannot import torch");
}

TEST(parse_nvcc_version, FindsRelease) {
  auto v = parse_nvcc_version("Cuda compilation tools, release 13.0, V13.0.88\nBuild cuda_13.0.r13.0");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->to_string(), "13.0");
  EXPECT_FALSE(parse_nvcc_version("garbage"));
}

TEST(read_toolchain_registry, ReadsVersionedList) {
  kb::util::TempDir dir;
  auto file = dir.path() / "toolchains.json";
  ASSERT_TRUE(kb::util::write_file_atomic(file, R"({"format_version": 1, "toolchains": [{"python": "/a/python"}, {"python": "venv/bin/python"}]})"));
  auto list = read_toolchain_registry(file);
  ASSERT_TRUE(list) << list.error().message;
  EXPECT_EQ(*list, (std::vector<std::string>{"/a/python", (dir.path() / "venv/bin/python").string()}));
  ASSERT_TRUE(kb::util::write_file_atomic(file, R"({"format_version": 2, "toolchains": []})"));
  EXPECT_FALSE(read_toolchain_registry(file));
}

// tvm_ffi's version, headers and library (what `python -m tvm_ffi.config` prints) come from the
// probe; a [tvm-ffi] variant compiles against exactly these.
TEST(parse_probe_output, ReadsTvmFfiInstallation) {
  std::string with_tvm = probe;
  with_tvm.insert(with_tvm.rfind('}'), R"(, "tvm_ffi_version": "0.1.15.post2",
    "tvm_ffi_include_dirs": ["/s/tvm_ffi/include", "/s/tvm_ffi/3rdparty/dlpack/include"],
    "tvm_ffi_library": "/s/tvm_ffi/lib/libtvm_ffi.so")");
  auto t = parse_probe_output(with_tvm, "/venv/bin/python");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->tvm_ffi_version, "0.1.15.post2");
  EXPECT_EQ(t->tvm_ffi_include_dirs,
            (std::vector<std::string>{"/s/tvm_ffi/include", "/s/tvm_ffi/3rdparty/dlpack/include"}));
  EXPECT_EQ(t->tvm_ffi_library, "/s/tvm_ffi/lib/libtvm_ffi.so");
  auto without = parse_probe_output(probe, "/venv/bin/python");
  ASSERT_TRUE(without);
  EXPECT_FALSE(without->tvm_ffi_version);
  EXPECT_TRUE(without->tvm_ffi_include_dirs.empty());
}

TEST(toolchain_differences, NamesEveryFieldThatDiffers) {
  auto a = parse_probe_output(probe, "/venv/bin/python");
  ASSERT_TRUE(a);
  Toolchain b = *a;
  EXPECT_TRUE(toolchain_differences(*a, b).empty());
  b.nvcc_flags.push_back("-DSITE_FLAG");
  b.torch_version = "2.11.1";
  EXPECT_EQ(toolchain_differences(*a, b), (std::vector<std::string>{"torch_version", "nvcc_flags"}));
  b = *a;
  b.cuda = CudaToolkit{"/usr/local/cuda/bin/nvcc", {13, 0}, "/usr/local/cuda"};
  EXPECT_EQ(toolchain_differences(*a, b), std::vector<std::string>{"cuda"});
  Toolchain c = b;
  c.cuda->version = {12, 8};
  EXPECT_EQ(toolchain_differences(b, c), std::vector<std::string>{"cuda"});
  c = b;
  c.tvm_ffi_library = "/t/libtvm_ffi.so";
  c.python = "/other/bin/python";
  EXPECT_EQ(toolchain_differences(b, c), (std::vector<std::string>{"python", "tvm_ffi_library"}));
}
