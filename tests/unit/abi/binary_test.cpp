// Reading real ELF files (this test program) and synthetic Mach-O files.
#include "abi/binary.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "abi/check.h"

namespace kb::abi {
namespace {
namespace KB_UNITY_ID {

namespace fs = std::filesystem;

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_abi_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return dir_ / name;
  }
  fs::path dir_;
};

void put32(std::string& bytes, uint32_t value) {
  char raw[4];
  std::memcpy(raw, &value, 4);
  bytes.append(raw, 4);
}

// A 64-bit Mach-O file with LC_BUILD_VERSION (minos 26.0) and one undefined external symbol.
std::string macho_bytes(bool truncate_symtab = false) {
  const std::string strings = std::string("\0_PyLong_FromLong\0", 18);
  std::string bytes;
  put32(bytes, 0xfeedfacf);  // magic
  put32(bytes, 0x0100000c);  // CPU_TYPE_ARM64
  put32(bytes, 0);
  put32(bytes, 6);           // MH_DYLIB
  put32(bytes, 2);           // ncmds
  put32(bytes, 24 + 24);     // sizeofcmds
  put32(bytes, 0);
  put32(bytes, 0);
  // LC_BUILD_VERSION: cmd, cmdsize, platform, minos, sdk, ntools
  put32(bytes, 0x32);
  put32(bytes, 24);
  put32(bytes, 1);
  put32(bytes, 26u << 16);
  put32(bytes, 26u << 16);
  put32(bytes, 0);
  // LC_SYMTAB: cmd, cmdsize, symoff, nsyms, stroff, strsize
  const uint32_t symoff = 32 + 48, nsyms = 1, stroff = symoff + 16;
  put32(bytes, 0x2);
  put32(bytes, 24);
  put32(bytes, symoff);
  put32(bytes, truncate_symtab ? 1000 : nsyms);
  put32(bytes, stroff);
  put32(bytes, static_cast<uint32_t>(strings.size()));
  // nlist_64: n_strx = 1, n_type = N_UNDF | N_EXT, n_sect, n_desc, n_value
  put32(bytes, 1);
  bytes.push_back(0x01);
  bytes.push_back(0);
  bytes.append(2, '\0');
  bytes.append(8, '\0');
  bytes += strings;
  return bytes;
}

TEST_F(TempDir, ReadsThisElfProgramsVersionedImports) {
  auto info = read_binary("/proc/self/exe");
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->format, Format::elf);
#if defined(__x86_64__)
  EXPECT_EQ(info->architecture, "x86_64");
#endif
  bool versioned_glibc = false;
  for (const auto& symbol : info->imports) {
    if (symbol.version && symbol.version->rfind("GLIBC_", 0) == 0) versioned_glibc = true;
  }
  EXPECT_TRUE(versioned_glibc);
  EXPECT_TRUE(std::is_sorted(info->imports.begin(), info->imports.end(),
                             [](const auto& a, const auto& b) { return a.name < b.name; }));
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The build id becomes a digest of the rest of the file: only the id's bytes change, a second
// derivation changes nothing, and a copy whose linker id differs gets the same id (two builds that
// differ only in what the linker hashed before a post-link step end up identical).
TEST_F(TempDir, DerivedBuildIdDependsOnlyOnTheRestOfTheFile) {
  const std::string original = read_all("/proc/self/exe");
  fs::path a = write("a.so", original);
  ASSERT_TRUE(derive_build_id(a).ok());
  const std::string derived = read_all(a);
  ASSERT_EQ(derived.size(), original.size());
  size_t first = derived.size(), last = 0;
  for (size_t i = 0; i < derived.size(); ++i) {
    if (derived[i] != original[i]) first = std::min(first, i), last = i;
  }
  ASSERT_LT(first, derived.size()) << "this test program has a GNU build id; it must change";
  EXPECT_LT(last - first, 32u);

  ASSERT_TRUE(derive_build_id(a).ok());
  EXPECT_EQ(read_all(a), derived);

  std::string other = original;
  other[first] = static_cast<char>(~other[first]);
  fs::path b = write("b.so", other);
  ASSERT_TRUE(derive_build_id(b).ok());
  EXPECT_EQ(read_all(b), derived);

  fs::path text = write("notes.txt", "not an ELF file");
  ASSERT_TRUE(derive_build_id(text).ok());
  EXPECT_EQ(read_all(text), "not an ELF file");
}

TEST_F(TempDir, ReadsMachOMinimumVersionAndImports) {
  auto info = read_binary(write("lib.so", macho_bytes()));
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->format, Format::macho64);
  EXPECT_EQ(info->macos_minos, "26.0.0");
  ASSERT_EQ(info->imports.size(), 1u);
  EXPECT_EQ(info->imports[0].name, "PyLong_FromLong");  // one leading '_' dropped
  auto report = check_file(dir_ / "lib.so", {});
  ASSERT_TRUE(report);
  ASSERT_EQ(report->violations.size(), 1u);
  EXPECT_EQ(report->violations[0].kind, ViolationKind::macos_newer);
}

TEST_F(TempDir, MalformedMachOIsAnErrorAndOtherFilesAreSkipped) {
  auto bad = read_binary(write("bad.so", macho_bytes(true)));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("bad.so"), std::string::npos);
  auto text = check_file(write("x.pyd", "MZ not really a PE file"), {});
  ASSERT_TRUE(text);
  EXPECT_TRUE(text->skipped);
  EXPECT_EQ(text->format_name, "PE");
}

TEST_F(TempDir, NativeFilesAreSoAndPydFilesSorted) {
  fs::create_directories(dir_ / "v" / "sub");
  write("v/b.so", "x");
  write("v/sub/a.pyd", "x");
  write("v/c.py", "x");
  auto files = native_files(dir_ / "v");
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].filename(), "b.so");
  EXPECT_EQ(files[1].filename(), "a.pyd");
}

// The C library this test runs with, from /proc/self/maps.
fs::path running_c_library() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    auto slash = line.find('/');
    if (slash != std::string::npos && fs::path(line.substr(slash)).filename() == "libc.so.6") return line.substr(slash);
  }
  return {};
}

TEST(ReadDefinitions, TheRunningCLibrary) {
  fs::path libc = running_c_library();
  ASSERT_FALSE(libc.empty());
  auto definitions = read_definitions(libc);
  ASSERT_TRUE(definitions) << definitions.error().message;
  EXPECT_EQ(definitions->soname, "libc.so.6");
  const auto& versions = definitions->versions;
  EXPECT_NE(std::find(versions.begin(), versions.end(), "GLIBC_2.17"), versions.end());
  auto strlen_symbol = std::find_if(definitions->symbols.begin(), definitions->symbols.end(),
                                    [](const DefinedSymbol& s) { return s.name == "strlen"; });
  ASSERT_NE(strlen_symbol, definitions->symbols.end());
  EXPECT_EQ(strlen_symbol->type, DefinedSymbol::Type::function);
  EXPECT_TRUE(strlen_symbol->is_default);
  EXPECT_EQ(strlen_symbol->version.rfind("GLIBC_2.", 0), 0u) << strlen_symbol->version;
  EXPECT_GT(definitions->symbols.size(), 1000u);
  EXPECT_TRUE(std::is_sorted(definitions->symbols.begin(), definitions->symbols.end(),
                             [](const DefinedSymbol& a, const DefinedSymbol& b) { return a.name < b.name; }));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::abi
