// Link stubs of portable builds (build/portable.h): which version each glibc symbol binds to,
// and the reproducibility check's first difference (build/reproducible.h).
#include "builder/portable.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <regex>

#include "builder/reproducible.h"
#include "util/fs.h"

namespace kb::builder {
namespace {
namespace KB_UNITY_ID {

abi::LibraryDefinitions libc_like() {
  using T = abi::DefinedSymbol::Type;
  abi::LibraryDefinitions lib;
  lib.soname = "libc.so.6";
  lib.versions = {"GLIBC_2.2.5", "GLIBC_2.3.2", "GLIBC_2.14", "GLIBC_2.32", "GLIBC_2.34", "GLIBC_PRIVATE"};
  lib.symbols = {
      {"__libc_single_threaded", "GLIBC_2.32", true, T::object, 1},
      {"_dl_private", "GLIBC_PRIVATE", true, T::function, 0},
      {"memcpy", "GLIBC_2.14", true, T::function, 0},
      {"memcpy", "GLIBC_2.2.5", false, T::function, 0},
      {"pthread_cond_wait", "GLIBC_2.2.5", false, T::function, 0},
      {"pthread_cond_wait", "GLIBC_2.3.2", true, T::function, 0},
      {"pthread_create", "GLIBC_2.2.5", false, T::function, 0},
      {"pthread_create", "GLIBC_2.34", true, T::function, 0},
      {"stdout", "GLIBC_2.2.5", true, T::object, 8},
  };
  return lib;
}

std::map<std::string, std::string> bindings(const StubSource& source) {
  std::map<std::string, std::string> out;
  static const std::regex symver(R"(\.symver kb_stub_\d+, ([^@]+)@@(\S+))");
  for (auto it = std::sregex_iterator(source.assembly.begin(), source.assembly.end(), symver); it != std::sregex_iterator(); ++it) {
    out[(*it)[1]] = (*it)[2];
  }
  return out;
}

TEST(PortableStubs, NewestVersionWithinTheCeiling) {
  auto source = render_stub_source(libc_like(), "2.28");
  auto bound = bindings(source);
  EXPECT_EQ(bound["pthread_create"], "GLIBC_2.2.5");      // not the 2.34 default
  EXPECT_EQ(bound["pthread_cond_wait"], "GLIBC_2.3.2");   // the newest <= 2.28, not the oldest
  EXPECT_EQ(bound["memcpy"], "GLIBC_2.14");
  EXPECT_EQ(bound["stdout"], "GLIBC_2.2.5");
  // No version that old: the oldest one stays, so that check-abi reports a use.
  EXPECT_EQ(bound["__libc_single_threaded"], "GLIBC_2.32");
  EXPECT_EQ(bound.count("_dl_private"), 0u);  // GLIBC_PRIVATE is never offered
  EXPECT_EQ(source.pinned, 1u);               // pthread_create: its default was newer than 2.28
  EXPECT_NE(source.assembly.find(".size kb_stub_"), std::string::npos);  // objects keep a size
  EXPECT_NE(source.version_script.find("GLIBC_2.34 { };"), std::string::npos);
}

TEST(PortableStubs, NewerCeilingKeepsTheDefaults) {
  auto bound = bindings(render_stub_source(libc_like(), "2.34"));
  EXPECT_EQ(bound["pthread_create"], "GLIBC_2.34");
  EXPECT_EQ(bound["__libc_single_threaded"], "GLIBC_2.32");
}

TEST(Reproducible, FirstDifferenceNamesTheFileAndTheElfSection) {
  util::TempDir a("kb-repro-a"), b("kb-repro-b");
  EXPECT_FALSE(first_difference(a.path(), b.path()));
  for (const auto* dir : {&a, &b}) ASSERT_TRUE(util::write_file_atomic(dir->path() / "_ops.py", "ops = 1\n"));
  // A copy of a small ELF program, one byte of its .rodata section changed in the second copy.
  auto self = util::read_file("/bin/true");
  ASSERT_TRUE(self);
  ASSERT_TRUE(util::write_file_atomic(a.path() / "m.abi3.so", *self));
  auto sections = abi::read_sections(a.path() / "m.abi3.so");
  ASSERT_TRUE(sections);
  std::string comment;
  for (const auto& [name, bytes] : *sections) {
    if (name == ".rodata") comment = bytes;
  }
  ASSERT_GT(comment.size(), 4u);
  std::string changed = *self;
  size_t at = changed.find(comment);
  ASSERT_NE(at, std::string::npos);
  changed[at + 2] ^= 0x20;
  ASSERT_TRUE(util::write_file_atomic(b.path() / "m.abi3.so", changed));
  auto difference = first_difference(a.path(), b.path());
  ASSERT_TRUE(difference);
  EXPECT_EQ(*difference, "m.abi3.so section .rodata: first difference at byte 2 (sizes " +
                             std::to_string(comment.size()) + " and " + std::to_string(comment.size()) + ")");
  // The build id (a digest of the rest, earlier in the file) differs too: the section it was derived
  // from is named first, the build id after it.
  std::string build_id;
  for (const auto& [name, bytes] : *sections) {
    if (name == ".note.gnu.build-id") build_id = bytes;
  }
  ASSERT_GT(build_id.size(), 20u);
  size_t id_at = changed.find(build_id);
  ASSERT_NE(id_at, std::string::npos);
  changed[id_at + build_id.size() - 1] ^= 0x01;
  ASSERT_TRUE(util::write_file_atomic(b.path() / "m.abi3.so", changed));
  EXPECT_EQ(*first_difference(a.path(), b.path()), "m.abi3.so section .rodata: first difference at byte 2 (sizes " +
                                                       std::to_string(comment.size()) + " and " +
                                                       std::to_string(comment.size()) + "); also .note.gnu.build-id");
  ASSERT_TRUE(util::write_file_atomic(b.path() / "m.abi3.so", *self));
  ASSERT_TRUE(util::write_file_atomic(b.path() / "_ops.py", "ops = 2\n"));
  EXPECT_EQ(*first_difference(a.path(), b.path()), "_ops.py: first difference at byte 6 (sizes 8 and 8)");
  ASSERT_TRUE(util::write_file_atomic(b.path() / "extra.txt", "x"));
  ASSERT_TRUE(util::write_file_atomic(b.path() / "_ops.py", "ops = 1\n"));
  EXPECT_EQ(*first_difference(a.path(), b.path()), "extra.txt: only in the second build");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::builder
