// Tests of fetching pinned header archives into the shared dependency cache: the table, the
// download/verify/unpack flow with a fake downloader (zip archives made here with minizip), the
// SHA-256 refusal, one fetch for concurrent builds, the errors and hints of resolve, and one real
// download of the pinned nvidia-cutlass 3.8 wheel from PyPI (skipped when PyPI is unreachable).
#include <gtest/gtest.h>
#include <minizip/zip.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "builder/header_archives.h"
#include "builder/header_deps.h"
#include "builder/header_fetch.h"
#include "config/reader.h"
#include "util/fs.h"
#include "util/hash.h"

using namespace kb::builder;
namespace fs = std::filesystem;

namespace {

// A zip archive with these (name, content) entries.
std::string make_zip(const fs::path& path, const std::vector<std::pair<std::string, std::string>>& files) {
  zipFile zip = zipOpen64(path.c_str(), APPEND_STATUS_CREATE);
  EXPECT_NE(zip, nullptr);
  for (const auto& [name, content] : files) {
    zip_fileinfo info{};
    EXPECT_EQ(zipOpenNewFileInZip64(zip, name.c_str(), &info, nullptr, 0, nullptr, 0, nullptr, Z_DEFLATED,
                                    Z_DEFAULT_COMPRESSION, 0),
              ZIP_OK);
    EXPECT_EQ(zipWriteInFileInZip(zip, content.data(), static_cast<unsigned>(content.size())), ZIP_OK);
    EXPECT_EQ(zipCloseFileInZip(zip), ZIP_OK);
  }
  EXPECT_EQ(zipClose(zip, nullptr), ZIP_OK);
  return kb::util::to_hex(*kb::util::hash_file(kb::util::HashAlgorithm::sha256, path));
}

// Serves `source` as every URL, counting the calls.
struct FakeDownloader {
  fs::path source;
  std::atomic<int>* calls;
  std::chrono::milliseconds delay{0};
  kb::util::Status operator()(const std::string&, const fs::path& destination, const DownloadProgress& progress) const {
    ++*calls;
    std::this_thread::sleep_for(delay);
    fs::copy_file(source, destination, fs::copy_options::overwrite_existing);
    auto size = fs::file_size(source);
    if (progress) progress(size, size);
    return {};
  }
};

HeaderFetch cutlass_fetch(const fs::path& cache, const std::string& sha256, std::uint64_t size) {
  return HeaderFetch{"cutlass_3_8",
                     HeaderArchive{"http://127.0.0.1:9/x.whl", sha256, size, "pkg/source/include", "test wheel"},
                     cache / "cutlass-3.8", "cutlass/cutlass.h"};
}

const std::vector<std::pair<std::string, std::string>> kWheel = {
    {"pkg/__init__.py", "print('not a header')\n"},
    {"pkg/source/include/cutlass/cutlass.h", "#pragma once\n#define STAND_IN 1\n"},
    {"pkg/source/include/cute/tensor.hpp", "#pragma once\n"},
    {"pkg/source/tools/util.h", "outside the include dir\n"}};

kb::config::BuildConfig gemm(const std::string& depends) {
  auto outcome = kb::config::parse_build_toml(R"([general]
name = "gemm"
version = 1
edition = 5
license = "MIT"
backends = ["cuda"]

[torch]
src = ["torch-ext/b.cpp"]

[kernel.gemm_cuda]
backend = "cuda"
depends = [)" + depends + R"(]
src = ["gemm_cuda/gemm.cu"]
)", "build.toml");
  EXPECT_TRUE(outcome.parsed);
  return outcome.parsed->config;
}

// A table file pinning `archive` for cutlass_3_8.
fs::path write_table(const fs::path& dir, const std::string& sha256, std::uint64_t size) {
  std::string text = R"({"format_version": 1, "dependencies": {
    "cutlass_3_8": {"url": "http://127.0.0.1:9/nvidia_cutlass.whl", "sha256": ")" + sha256 + R"(", "size": )" +
                     std::to_string(size) + R"(, "format": "zip", "include_dir": "pkg/source/include",
                     "release": "test wheel"},
    "cutlass_4_0": {"unavailable": "no wheel for 4.0"}}})";
  EXPECT_TRUE(kb::util::write_file_atomic(dir / "table.json", text));
  return dir / "table.json";
}

}  // namespace

TEST(load_header_archive_table, BuiltInTablePinsTheWheelsAndNamesEveryDependency) {
  auto table = load_header_archive_table("");
  ASSERT_TRUE(table) << table.error().message;
  for (const char* name : {"cutlass_2_10", "cutlass_3_5", "cutlass_3_6", "cutlass_3_8", "cutlass_3_9", "cutlass_4_0",
                           "cutlass_4_4", "cutlass_4_5", "sycl_tla", "metal-cpp"}) {
    EXPECT_NE(table->find(name), nullptr) << name;
  }
  const auto* pinned = table->find("cutlass_3_8");
  ASSERT_TRUE(pinned->archive);
  EXPECT_EQ(pinned->archive->sha256, "013147221a63500205da233ae02e6262463917f3fe39cb09efbca37bfd1c39f9");
  EXPECT_EQ(pinned->archive->include_dir, "cutlass_library/source/include");
  EXPECT_FALSE(table->find("cutlass_4_0")->archive);
  EXPECT_EQ(table->find("cutlass_4_0")->unavailable, "PyPI's nvidia-cutlass has no 4.0 wheel");
}

TEST(parse_header_archive_table, RefusesABadDigestAndOtherFormats) {
  auto bad = parse_header_archive_table(R"({"format_version": 1, "dependencies": {"cutlass_3_8": {"url": "https://x/y.whl",
    "sha256": "ABC", "size": 1, "format": "zip", "include_dir": "i", "release": "r"}}})", "test");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "Invalid header archive table test");
  EXPECT_EQ(bad.error().causes.at(0), "`cutlass_3_8.sha256` is not 64 lower-case hex digits");
  auto tar = parse_header_archive_table(R"({"format_version": 1, "dependencies": {"cutlass_3_8": {"url": "https://x/y",
    "sha256": ")" + std::string(64, 'a') + R"(", "size": 1, "format": "tar", "include_dir": "i", "release": "r"}}})", "test");
  ASSERT_FALSE(tar);
  EXPECT_EQ(tar.error().causes.at(0), "`cutlass_3_8.format` must be `zip` (the only archive format the builder unpacks)");
}

TEST(fetch_header_archive, VerifiesThenUnpacksOnlyTheIncludeDirectory) {
  kb::util::TempDir dir;
  std::string sha = make_zip(dir.path() / "a.whl", kWheel);
  std::atomic<int> calls = 0;
  std::vector<std::string> notes;
  auto fetch = cutlass_fetch(dir.path() / "cache", sha, fs::file_size(dir.path() / "a.whl"));
  auto done = fetch_header_archive(fetch, FakeDownloader{dir.path() / "a.whl", &calls},
                                   [&](const std::string& line) { notes.push_back(line); });
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(*kb::util::read_file(fetch.entry / "include/cutlass/cutlass.h"), "#pragma once\n#define STAND_IN 1\n");
  EXPECT_TRUE(fs::is_regular_file(fetch.entry / "include/cute/tensor.hpp"));
  EXPECT_EQ(kb::util::list_files_recursive(fetch.entry),
            (std::vector<std::string>{"include/cute/tensor.hpp", "include/cutlass/cutlass.h", "source.json"}));
  EXPECT_NE(kb::util::read_file(fetch.entry / "source.json")->find(sha), std::string::npos);
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes.front().rfind("cutlass_3_8: downloading test wheel (0.0 MiB) from http://127.0.0.1:9/x.whl", 0), 0u);
  EXPECT_EQ(notes.back(), "cutlass_3_8: SHA-256 verified; 2 headers unpacked into `" + fetch.entry.string() + "`");
  // Only the entry and its lock remain in the cache: no temporary directory, no archive.
  std::vector<std::string> left;
  for (const auto& item : fs::directory_iterator(dir.path() / "cache")) left.push_back(item.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{".cutlass-3.8.lock", "cutlass-3.8"}));
}

TEST(fetch_header_archive, Sha256MismatchExtractsNothing) {
  kb::util::TempDir dir;
  make_zip(dir.path() / "a.whl", kWheel);
  std::string pinned(64, '0');
  std::atomic<int> calls = 0;
  auto fetch = cutlass_fetch(dir.path() / "cache", pinned, 100);
  auto done = fetch_header_archive(fetch, FakeDownloader{dir.path() / "a.whl", &calls}, {});
  ASSERT_FALSE(done);
  EXPECT_EQ(done.error().kind, kb::util::ErrorKind::integrity);
  EXPECT_EQ(done.error().message,
            "The archive downloaded for `cutlass_3_8` does not match its pinned SHA-256; nothing was extracted");
  std::string got = kb::util::to_hex(*kb::util::hash_file(kb::util::HashAlgorithm::sha256, dir.path() / "a.whl"));
  EXPECT_EQ(done.error().causes, (std::vector<std::string>{"from http://127.0.0.1:9/x.whl", "expected sha256 " + pinned,
                                                           "got sha256 " + got}));
  EXPECT_FALSE(fs::exists(fetch.entry));
  EXPECT_EQ(kb::util::list_files_recursive(dir.path() / "cache"), (std::vector<std::string>{".cutlass-3.8.lock"}));
}

TEST(fetch_header_archive, ConcurrentFetchesDownloadOnce) {
  kb::util::TempDir dir;
  std::string sha = make_zip(dir.path() / "a.whl", kWheel);
  std::atomic<int> calls = 0;
  auto fetch = cutlass_fetch(dir.path() / "cache", sha, 1);
  FakeDownloader slow{dir.path() / "a.whl", &calls, std::chrono::milliseconds(300)};
  std::vector<std::thread> threads;
  std::atomic<int> ok = 0;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      if (fetch_header_archive(fetch, slow, {})) ++ok;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(ok, 4);
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(fs::is_regular_file(fetch.entry / "include/cutlass/cutlass.h"));
}

TEST(fetch_header_archive, RefusesEntriesOutsideTheIncludeDirectory) {
  kb::util::TempDir dir;
  std::string sha = make_zip(dir.path() / "a.whl", {{"pkg/source/include/cutlass/cutlass.h", "x"},
                                                    {"pkg/source/include/../../../../evil.h", "y"}});
  std::atomic<int> calls = 0;
  auto fetch = cutlass_fetch(dir.path() / "cache", sha, 1);
  auto done = fetch_header_archive(fetch, FakeDownloader{dir.path() / "a.whl", &calls}, {});
  ASSERT_FALSE(done);
  EXPECT_EQ(done.error().causes.at(0), "entry `pkg/source/include/../../../../evil.h` points outside its directory");
  EXPECT_FALSE(fs::exists(fetch.entry));
  EXPECT_FALSE(fs::exists(dir.path() / "evil.h"));
}

TEST(resolve_header_dependencies, FetchesThePinnedArchiveIntoTheCache) {
  kb::util::TempDir dir;
  std::string sha = make_zip(dir.path() / "a.whl", kWheel);
  std::atomic<int> calls = 0;
  HeaderFetchSettings settings;
  settings.table_file = write_table(dir.path(), sha, 1).string();
  settings.download = FakeDownloader{dir.path() / "a.whl", &calls};
  auto result = resolve_header_dependencies(gemm(R"("torch", "cutlass_3_8")"), kb::config::Backend::cuda, {},
                                            dir.path() / "cache", &settings);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->include_dirs, std::vector<fs::path>{dir.path() / "cache/cutlass-3.8/include"});
  // The second build finds the entry.
  ASSERT_TRUE(resolve_header_dependencies(gemm(R"("torch", "cutlass_3_8")"), kb::config::Backend::cuda, {},
                                          dir.path() / "cache", &settings));
  EXPECT_EQ(calls, 1);
}

TEST(resolve_header_dependencies, NetworkFailureNamesTheVariableAndTheExactCacheEntry) {
  kb::util::TempDir dir;
  HeaderFetchSettings settings;
  settings.table_file = write_table(dir.path(), std::string(64, 'a'), 5 << 20).string();
  settings.download = [](const std::string& url, const fs::path&, const DownloadProgress&) -> kb::util::Status {
    return kb::util::Error(kb::util::ErrorKind::network, "Cannot download " + url).with_cause("Could not resolve host");
  };
  fs::path entry = dir.path() / "cache/cutlass-3.8";
  auto result = resolve_header_dependencies(gemm(R"("torch", "cutlass_3_8")"), kb::config::Backend::cuda, {},
                                            dir.path() / "cache", &settings);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, kb::util::ErrorKind::network);
  EXPECT_EQ(result.error().message, "Cannot fetch the CUTLASS 3.8 headers that kernel `gemm_cuda` depends on (`cutlass_3_8`)");
  EXPECT_EQ(result.error().causes,
            (std::vector<std::string>{"Cannot download http://127.0.0.1:9/nvidia_cutlass.whl", "Could not resolve host"}));
  EXPECT_EQ(result.error().hints,
            (std::vector<std::string>{
                "set CUTLASS_SRC_DIR to a checkout of https://github.com/NVIDIA/cutlass at tag v3.8.x",
                "or pre-fill the cache where the network is reachable: download http://127.0.0.1:9/nvidia_cutlass.whl "
                "(SHA-256 " + std::string(64, 'a') + ") and unpack its `pkg/source/include/` as `" +
                    (entry / "include").string() + "`"}));
  EXPECT_FALSE(fs::exists(entry));
}

TEST(resolve_header_dependencies, OfflineAndUnavailableKeepTheMissingError) {
  kb::util::TempDir dir;
  HeaderFetchSettings settings;
  settings.table_file = write_table(dir.path(), std::string(64, 'a'), 1).string();
  settings.offline = true;
  settings.download = [](const std::string&, const fs::path&, const DownloadProgress&) -> kb::util::Status {
    ADD_FAILURE() << "downloaded while offline";
    return {};
  };
  auto offline = resolve_header_dependencies(gemm(R"("torch", "cutlass_3_8")"), kb::config::Backend::cuda, {},
                                             dir.path() / "cache", &settings);
  ASSERT_FALSE(offline);
  EXPECT_EQ(offline.error().message, "Kernel `gemm_cuda` depends on `cutlass_3_8`, but no CUTLASS 3.8 headers were found");
  EXPECT_EQ(offline.error().causes.at(1),
            "downloads are off (--offline or KERNEL_BUILDER_OFFLINE), so the pinned test wheel was not fetched");
  EXPECT_EQ(offline.error().hints.size(), 3u);
  settings.offline = false;
  auto unavailable = resolve_header_dependencies(gemm(R"("torch", "cutlass_4_0")"), kb::config::Backend::cuda, {},
                                                 dir.path() / "cache", &settings);
  ASSERT_FALSE(unavailable);
  EXPECT_EQ(unavailable.error().causes.at(1), "there is no pinned archive to fetch: no wheel for 4.0");
  EXPECT_EQ(unavailable.error().hints.size(), 2u);
}

// The one test that reaches the network: the pinned nvidia-cutlass 3.8 wheel (5.1 MiB) from
// PyPI, through libcurl, verified and unpacked as a build would. Skipped when PyPI is unreachable.
TEST(fetch_header_archive, RealPinnedCutlassWheelFromPyPI) {
  auto table = load_header_archive_table("");
  ASSERT_TRUE(table);
  kb::util::TempDir dir;
  HeaderFetch fetch{"cutlass_3_8", *table->find("cutlass_3_8")->archive, dir.path() / "cutlass-3.8", "cutlass/cutlass.h"};
  auto done = fetch_header_archive(fetch, download_file, {});
  if (!done && done.error().kind == kb::util::ErrorKind::network) {
    GTEST_SKIP() << "PyPI unreachable: " << done.error().message;
  }
  ASSERT_TRUE(done) << done.error().message;
  auto version = kb::util::read_file(fetch.entry / "include/cutlass/version.h");
  ASSERT_TRUE(version);
  EXPECT_NE(version->find("#define CUTLASS_MINOR 8"), std::string::npos);
  EXPECT_TRUE(fs::is_regular_file(fetch.entry / "include/cute/tensor.hpp"));
}
