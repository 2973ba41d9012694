// Portable (manylinux) modules from a newer host (docs/building.md).
//
// Approach: the module is compiled with the host's own compiler, headers and libstdc++ (torch's
// C++ ABI needs the same libstdc++ that torch uses), and only the final link sees *link stubs*
// of the C library: for every symbol of the host's libc.so.6 / libm.so.6 a stub library defines
// it once, as the default version, at the newest version the target policy allows (the version
// an old system has; e.g. `pthread_create@GLIBC_2.2.5`, `memcpy@GLIBC_2.14` for manylinux_2_28).
// The linker then records those versions in the module. The stubs are read from the very libraries
// the link would use (with libelf), so they fit any host glibc and need no data or network.
// A symbol with no version that old keeps its oldest version, and check-abi reports it.
//
// What newer headers make compiled code use and the target lacks gets a hidden definition inside
// the module where it is known to be correct: `__libc_single_threaded` (glibc 2.32; libstdc++
// skips atomics when it is non-zero, 0 is always correct) and `std::__throw_bad_array_new_length`
// (GLIBCXX_3.4.29; it throws std::bad_array_new_length, a type older libstdc++ has), and the
// default constructors of std::ostringstream & co. (GLIBCXX_3.4.26; they delegate to the
// open-mode constructors older libstdc++ has).
// Other GLIBCXX/CXXABI symbols stay shared with the process's libstdc++ (torch catches the
// module's exceptions, so a static libstdc++ is no option); check-abi names any that are too new.
//
// For targets before glibc 2.34 the module also names libpthread.so.0, libdl.so.2 and librt.so.1
// in DT_NEEDED: older systems define those functions there, not in libc.so.6.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "abi/binary.h"
#include "util/result.h"

namespace kb::builder {

struct PortableLink {
  std::string policy;          // canonical policy name, e.g. manylinux_2_28
  std::string glibc_ceiling;   // newest GLIBC version it allows, e.g. 2.28
  std::filesystem::path stub_dir;  // `-L` directory: stub libraries and linker scripts
  std::optional<std::filesystem::path> support_source;  // local definitions (kb_portable.cpp), if needed
  std::vector<std::string> extra_libraries;  // e.g. libpthread.so.0 (linked with -l: and --no-as-needed)
  std::string fingerprint;     // changes when the stubs would change (configure stamp)
};

// The assembler text of one stub library: the symbols of `definitions` bound to their newest
// version <= `glibc_ceiling` (or their oldest, if none is that old), and its version script.
struct StubSource {
  std::string assembly;
  std::string version_script;
  size_t pinned = 0;  // symbols whose default version was newer than the ceiling
};
StubSource render_stub_source(const abi::LibraryDefinitions& definitions, const std::string& glibc_ceiling);

// Writes (or reuses, when up to date) the stubs under `dir` for `policy` on `architecture`
// ("x86_64"), using the C++ compiler `cxx` to find and link the libraries.
util::Result<PortableLink> prepare_portable_link(const std::filesystem::path& dir, const std::string& policy,
                                                 const std::string& architecture, const std::string& cxx = "c++");

}  // namespace kb::builder
