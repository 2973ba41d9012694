// Tests of the CMake compiler identification seed (cmake_seed.h): what its identity covers, what
// it takes from a configured tree, and that a changed compiler or a corrupt entry is not seeded.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "builder/cmake_seed.h"
#include "util/fs.h"

using namespace kb::builder;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kConfigure = {"cmake", "-S", "/p/build/.kb/v/project", "-B", "/p/build/.kb/v/cmake-build",
                                             "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release", "-DKB_PROJECT_DIR=/p",
                                             "-DCMAKE_CXX_COMPILER_LAUNCHER=/usr/bin/ccache"};

const char* kCache = R"(# This is the CMakeCache file.
//CXX compiler
CMAKE_CXX_COMPILER:FILEPATH=/usr/bin/c++
CMAKE_CXX_COMPILER-ADVANCED:INTERNAL=1
CMAKE_CXX_COMPILER_AR:FILEPATH=/usr/bin/gcc-ar-12
CMAKE_CXX_COMPILER_LAUNCHER:UNINITIALIZED=/usr/bin/ccache
CMAKE_CXX_FLAGS:STRING=
CMAKE_OBJCOPY:FILEPATH=/usr/bin/objcopy
CMAKE_CUDA_COMPILER:STRING=/usr/local/cuda/bin/nvcc
CMAKE_BUILD_TYPE:STRING=Release
CMAKE_CACHEFILE_DIR:INTERNAL=/p/build/.kb/v/cmake-build
CMAKE_PLATFORM_INFO_INITIALIZED:INTERNAL=1
CMAKE_UNAME:INTERNAL=/usr/bin/uname
CMAKE_TAPI:FILEPATH=CMAKE_TAPI-NOTFOUND
CMAKE_TAPI-ADVANCED:INTERNAL=1
KB_PROJECT_DIR:UNINITIALIZED=/p
KB_HAVE_NO_GNU_UNIQUE:INTERNAL=1
)";

}  // namespace

TEST(cmake_seed_identity, LeavesOutTheProjectAndKeepsTheCompilerEnvironment) {
  std::map<std::string, std::string> env = {{"PATH", "/usr/bin"}, {"SOURCE_DATE_EPOCH", "1"}, {"MAX_JOBS", "2"}, {"HOME", "/root"}};
  std::string identity = cmake_seed_identity(kConfigure, "CXX", env, "Linux 6.1 x86_64");
  EXPECT_EQ(identity.find("/p/build"), std::string::npos) << identity;
  EXPECT_EQ(identity.find("KB_PROJECT_DIR"), std::string::npos) << identity;
  EXPECT_EQ(identity.find("SOURCE_DATE_EPOCH"), std::string::npos) << identity;
  EXPECT_EQ(identity.find("HOME"), std::string::npos) << identity;
  EXPECT_NE(identity.find("arg -DCMAKE_CXX_COMPILER_LAUNCHER=/usr/bin/ccache"), std::string::npos) << identity;
  // Another project (other paths, other KB_* values) has the same identity ...
  auto other = kConfigure;
  other[2] = "/q/build/.kb/w/project";
  other[8] = "-DKB_PROJECT_DIR=/q";
  EXPECT_EQ(cmake_seed_identity(other, "CXX", env, "Linux 6.1 x86_64"), identity);
  // ... another compiler, search path, flags, language set, nvcc option or kernel does not.
  for (const auto& [name, value] : std::map<std::string, std::string>{{"CXX", "/usr/bin/clang++"},
                                                                      {"CXXFLAGS", "-m32"},
                                                                      {"LIBRARY_PATH", "/opt/lib"},
                                                                      {"CUDAHOSTCXX", "/usr/bin/g++-11"},
                                                                      {"NVCC_PREPEND_FLAGS", "-ccbin=/x"},
                                                                      {"CMAKE_TOOLCHAIN_FILE", "/t.cmake"}}) {
    auto changed = env;
    changed[name] = value;
    EXPECT_NE(cmake_seed_identity(kConfigure, "CXX", changed, "Linux 6.1 x86_64"), identity) << name;
  }
  auto changed_path = env;
  changed_path["PATH"] = "/opt/gcc/bin:/usr/bin";
  EXPECT_NE(cmake_seed_identity(kConfigure, "CXX", changed_path, "Linux 6.1 x86_64"), identity);
  EXPECT_NE(cmake_seed_identity(kConfigure, "CXX CUDA", env, "Linux 6.1 x86_64"), identity);
  EXPECT_NE(cmake_seed_identity(kConfigure, "CXX", env, "Linux 6.2 x86_64"), identity);
  auto cuda = kConfigure;
  cuda.push_back("-DCMAKE_CUDA_COMPILER=/usr/local/cuda-13.0/bin/nvcc");
  EXPECT_NE(cmake_seed_identity(cuda, "CXX", env, "Linux 6.1 x86_64"), identity);
}

TEST(seed_cache_entries, KeepsWhatIdentificationWrote) {
  std::vector<std::string> expected = {"CMAKE_CXX_COMPILER:FILEPATH=/usr/bin/c++", "CMAKE_CXX_COMPILER-ADVANCED:INTERNAL=1",
                                       "CMAKE_CXX_COMPILER_AR:FILEPATH=/usr/bin/gcc-ar-12",
                                       "CMAKE_OBJCOPY:FILEPATH=/usr/bin/objcopy",
                                       "CMAKE_CUDA_COMPILER:STRING=/usr/local/cuda/bin/nvcc",
                                       "CMAKE_PLATFORM_INFO_INITIALIZED:INTERNAL=1", "CMAKE_UNAME:INTERNAL=/usr/bin/uname",
                                       // CMake >= 3.31's binutils search (macOS TAPI; NOTFOUND elsewhere).
                                       "CMAKE_TAPI:FILEPATH=CMAKE_TAPI-NOTFOUND", "CMAKE_TAPI-ADVANCED:INTERNAL=1"};
  EXPECT_EQ(seed_cache_entries(kCache), expected);
}

TEST(referenced_paths, ListsAbsolutePathsOfSetLines) {
  auto paths = referenced_paths(
      "set(CMAKE_CXX_COMPILER \"/usr/bin/c++\")\nset(CMAKE_CXX_COMPILER_ARG1 \"\")\nset(CMAKE_CXX_COMPILER_ID \"GNU\")\n"
      "set(CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES \"/usr/lib/gcc;/usr/lib\")\n  set(CMAKE_LINKER \"/usr/bin/ld\")\n"
      "set(CMAKE_AR \"/usr/bin/ar\")\nset(CMAKE_LINKER \"/usr/bin/ld\")\n");
  EXPECT_EQ(paths, (std::vector<std::string>{"/usr/bin/c++", "/usr/lib/gcc", "/usr/lib", "/usr/bin/ld", "/usr/bin/ar"}));
}

class CMakeSeed : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path();
    compiler_ = root_ / "bin" / "c++";
    ASSERT_TRUE(kb::util::write_file_atomic(compiler_, "compiler 1"));
    fs::path ids = root_ / "first" / "CMakeFiles" / "3.25.1";
    ASSERT_TRUE(kb::util::write_file_atomic(ids / "CMakeSystem.cmake", "set(CMAKE_SYSTEM_NAME \"Linux\")\n"));
    compiler_file_ = "set(CMAKE_CXX_COMPILER \"" + compiler_.string() + "\")\nset(CMAKE_CXX_COMPILER_LOADED 1)\n";
    ASSERT_TRUE(kb::util::write_file_atomic(ids / "CMakeCXXCompiler.cmake", compiler_file_));
    ASSERT_TRUE(kb::util::write_file_atomic(ids / "CMakeDetermineCompilerABI_CXX.bin", "binary"));
    ASSERT_TRUE(kb::util::write_file_atomic(root_ / "first" / "CMakeCache.txt", kCache));
  }
  fs::path seeds() const { return root_ / "seeds"; }

  kb::util::TempDir dir_{"kb-cmake-seed"};
  fs::path root_;
  fs::path compiler_;
  std::string compiler_file_;
};

TEST_F(CMakeSeed, AppliesWhatTheFirstConfigureIdentified) {
  ASSERT_TRUE(save_cmake_seed(seeds(), "identity", root_ / "first"));
  fs::path second = root_ / "second";
  fs::path used = apply_cmake_seed(seeds(), "identity", second);
  ASSERT_FALSE(used.empty());
  EXPECT_EQ(*kb::util::read_file(second / "CMakeFiles" / "3.25.1" / "CMakeCXXCompiler.cmake"), compiler_file_);
  EXPECT_TRUE(fs::exists(second / "CMakeFiles" / "3.25.1" / "CMakeSystem.cmake"));
  EXPECT_FALSE(fs::exists(second / "CMakeFiles" / "3.25.1" / "CMakeDetermineCompilerABI_CXX.bin"));
  std::string cache = *kb::util::read_file(second / "CMakeCache.txt");
  EXPECT_NE(cache.find("\nCMAKE_PLATFORM_INFO_INITIALIZED:INTERNAL=1\n"), std::string::npos) << cache;
  EXPECT_NE(cache.find("\nCMAKE_OBJCOPY:FILEPATH=/usr/bin/objcopy\n"), std::string::npos) << cache;
  EXPECT_EQ(cache.find("KB_"), std::string::npos) << cache;
  EXPECT_EQ(cache.find("/p/build"), std::string::npos) << cache;
  // Another identity has no seed.
  EXPECT_TRUE(apply_cmake_seed(seeds(), "another identity", root_ / "third").empty());
  EXPECT_FALSE(fs::exists(root_ / "third"));
}

TEST_F(CMakeSeed, ChangedCompilerIsNotSeeded) {
  ASSERT_TRUE(save_cmake_seed(seeds(), "identity", root_ / "first"));
  ASSERT_TRUE(kb::util::write_file_atomic(compiler_, "compiler 2, upgraded"));
  EXPECT_TRUE(apply_cmake_seed(seeds(), "identity", root_ / "second").empty());
  EXPECT_FALSE(fs::exists(root_ / "second"));
}

TEST_F(CMakeSeed, CompilerPointedElsewhereIsNotSeeded) {
  fs::path real = root_ / "bin" / "g++-12";
  ASSERT_TRUE(kb::util::write_file_atomic(real, "compiler 1"));
  fs::remove(compiler_);
  fs::create_symlink(real, compiler_);
  ASSERT_TRUE(save_cmake_seed(seeds(), "identity", root_ / "first"));
  fs::path other = root_ / "bin" / "g++-13";
  ASSERT_TRUE(kb::util::write_file_atomic(other, "compiler 1"));
  fs::last_write_time(other, fs::last_write_time(real));
  fs::remove(compiler_);
  fs::create_symlink(other, compiler_);  // same size and time, another file
  EXPECT_TRUE(apply_cmake_seed(seeds(), "identity", root_ / "second").empty());
}

TEST_F(CMakeSeed, CorruptOrForgottenSeedIsNotApplied) {
  ASSERT_TRUE(save_cmake_seed(seeds(), "identity", root_ / "first"));
  for (const auto& entry : fs::directory_iterator(seeds())) {
    std::string text = *kb::util::read_file(entry.path());
    ASSERT_TRUE(kb::util::write_file_atomic(entry.path(), text.substr(0, text.size() / 2)));
  }
  EXPECT_TRUE(apply_cmake_seed(seeds(), "identity", root_ / "second").empty());
  ASSERT_TRUE(save_cmake_seed(seeds(), "identity", root_ / "first"));
  forget_cmake_seed(seeds(), "identity");
  EXPECT_TRUE(apply_cmake_seed(seeds(), "identity", root_ / "second").empty());
  EXPECT_FALSE(fs::exists(root_ / "second"));
}

TEST_F(CMakeSeed, TreeWithoutIdentificationRecordsNothing) {
  fs::create_directories(root_ / "empty");
  ASSERT_TRUE(save_cmake_seed(seeds(), "identity", root_ / "empty"));
  EXPECT_FALSE(fs::exists(seeds()));
}
