// Tests of the toolchain probe cache (toolchain.h): a fake interpreter counts its runs, so each
// test sees whether probe_toolchain ran it or read the cached result.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "builder/toolchain.h"
#include "util/fs.h"
#include "util/strings.h"

using namespace kb::builder;
namespace fs = std::filesystem;

namespace {

class ProbeCache : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path();
    fs::create_directories(root_ / "venv" / "bin");
    fs::create_directories(root_ / "site" / "torch");
    ASSERT_TRUE(kb::util::write_file_atomic(root_ / "site" / "torch" / "version.py", "__version__ = '2.11.0'\n"));
    std::string probe = R"({"python_version": "3.11.7", "python_include": "/inc", "machine": "x86_64",
      "system": "Linux", "torch_version": "2.11.0", "cxx11_abi": true, "cmake_prefix_path": "/t/share/cmake",
      "include_dirs": ["/t/include"], "library_dirs": ["/t/lib"], "torch_dir": ")" +
                        (root_ / "site" / "torch").string() + R"(", "site_dirs": [")" + (root_ / "site").string() +
                        R"("]})";
    ASSERT_TRUE(kb::util::write_file_atomic(root_ / "probe.json", probe));
    write_interpreter("");
    // Directory times as of "an hour ago": the probe keeps only results whose files were not
    // modified while it ran.
    age(root_ / "site");
  }

  // The fake interpreter: appends a line to runs.txt and prints the probe output.
  void write_interpreter(const std::string& extra) {
    fs::path python = interpreter();
    ASSERT_TRUE(kb::util::write_file_atomic(python, "#!/bin/sh\n" + extra + "echo run >> '" + (root_ / "runs.txt").string() +
                                                        "'\ncat '" + (root_ / "probe.json").string() + "'\n"));
    fs::permissions(python, fs::perms::owner_all);
    age(python);
    age(root_ / "site" / "torch" / "version.py");
  }

  static void age(const fs::path& path) { fs::last_write_time(path, fs::file_time_type::clock::now() - std::chrono::hours(1)); }

  fs::path interpreter() const { return root_ / "venv" / "bin" / "python"; }
  fs::path cache() const { return root_ / "cache"; }

  size_t runs() const {
    auto text = kb::util::read_file(root_ / "runs.txt");
    return text ? kb::util::split(*text, '\n').size() - 1 : 0;
  }

  bool probe_from_cache() {
    bool cached = false;
    auto toolchain = probe_toolchain(interpreter().string(), cache(), &cached);
    EXPECT_TRUE(toolchain) << (toolchain ? "" : toolchain.error().message);
    if (toolchain) {
      EXPECT_EQ(toolchain->torch_version, "2.11.0");
    }
    return cached;
  }

  kb::util::TempDir dir_{"kb-probe-cache"};
  fs::path root_;
};

}  // namespace

TEST_F(ProbeCache, SecondProbeReadsTheCache) {
  EXPECT_FALSE(probe_from_cache());
  EXPECT_TRUE(probe_from_cache());
  EXPECT_EQ(runs(), 1u);
}

TEST_F(ProbeCache, NoCacheDirectoryAlwaysProbes) {
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(probe_toolchain(interpreter().string(), {}));
  EXPECT_EQ(runs(), 2u);
}

TEST_F(ProbeCache, ReinstalledTorchIsProbedAgain) {
  EXPECT_FALSE(probe_from_cache());
  ASSERT_TRUE(kb::util::write_file_atomic(root_ / "site" / "torch" / "version.py", "__version__ = '2.12.0'\n"));
  EXPECT_FALSE(probe_from_cache());
  EXPECT_TRUE(probe_from_cache());
  EXPECT_EQ(runs(), 2u);
}

TEST_F(ProbeCache, PackageInstalledOrRemovedIsProbedAgain) {
  EXPECT_FALSE(probe_from_cache());
  fs::create_directories(root_ / "site" / "tvm_ffi");
  fs::last_write_time(root_ / "site", fs::file_time_type::clock::now() - std::chrono::minutes(30));
  EXPECT_FALSE(probe_from_cache());
  EXPECT_EQ(runs(), 2u);
}

TEST_F(ProbeCache, ChangedInterpreterIsProbedAgain) {
  EXPECT_FALSE(probe_from_cache());
  write_interpreter("# another Python\n");
  EXPECT_FALSE(probe_from_cache());
  EXPECT_TRUE(probe_from_cache());
  EXPECT_EQ(runs(), 2u);
}

TEST_F(ProbeCache, VenvConfigurationChangeIsProbedAgain) {
  EXPECT_FALSE(probe_from_cache());
  ASSERT_TRUE(kb::util::write_file_atomic(root_ / "venv" / "pyvenv.cfg", "include-system-site-packages = true\n"));
  EXPECT_FALSE(probe_from_cache());
  EXPECT_EQ(runs(), 2u);
}

TEST_F(ProbeCache, ImportPathEnvironmentIsPartOfTheIdentity) {
  EXPECT_FALSE(probe_from_cache());
  const char* old = std::getenv("PYTHONPATH");
  std::string saved = old ? old : "";
  ::setenv("PYTHONPATH", (root_ / "elsewhere").c_str(), 1);
  EXPECT_NE(probe_cache_identity(interpreter()), "");
  bool cached = probe_from_cache();
  if (old) {
    ::setenv("PYTHONPATH", saved.c_str(), 1);
  } else {
    ::unsetenv("PYTHONPATH");
  }
  EXPECT_FALSE(cached);
  EXPECT_TRUE(probe_from_cache());  // the entry without PYTHONPATH is still there
  EXPECT_EQ(runs(), 2u);
}

TEST_F(ProbeCache, CorruptOrForeignEntryIsProbedAgain) {
  EXPECT_FALSE(probe_from_cache());
  for (const auto& entry : fs::directory_iterator(cache())) {
    ASSERT_TRUE(kb::util::write_file_atomic(entry.path(), "{\"format_version\": 4, \"probe\": 7"));
  }
  EXPECT_FALSE(probe_from_cache());
  for (const auto& entry : fs::directory_iterator(cache())) {
    ASSERT_TRUE(kb::util::write_file_atomic(entry.path(), "not json"));
  }
  EXPECT_FALSE(probe_from_cache());
  EXPECT_TRUE(probe_from_cache());
  EXPECT_EQ(runs(), 3u);
}

TEST_F(ProbeCache, ResultOfAProbeDuringAnInstallIsNotKept) {
  // The package directory looks modified after the probe started (an install under way).
  fs::last_write_time(root_ / "site", fs::file_time_type::clock::now() + std::chrono::minutes(5));
  EXPECT_FALSE(probe_from_cache());
  EXPECT_FALSE(probe_from_cache());
  EXPECT_EQ(runs(), 2u);
}
