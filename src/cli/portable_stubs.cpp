// kb-portable-stubs: a build step of portable builds (KB_PORTABLE, cmake/Portable.cmake), not a
// shipped program. It writes the link stubs of the host's libc/libm for a manylinux policy into a
// directory, with the same code kernel-builder uses for portable kernels (builder/portable.h).
//   kb-portable-stubs <policy> <directory> <c++ compiler>
#include <cstdio>
#include <filesystem>
#include <string>

#include "builder/portable.h"
#include "util/report.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: kb-portable-stubs <policy> <directory> <c++ compiler>\n");
    return 2;
  }
  const std::filesystem::path dir = argv[2];
  auto link = kb::builder::prepare_portable_link(dir, argv[1], "x86_64", argv[3]);
  if (!link) {
    kb::util::print_error(link.error());
    return 1;
  }
  std::fprintf(stderr, "kb-portable-stubs: %s (GLIBC <= %s) in %s\n", link->policy.c_str(), link->glibc_ceiling.c_str(),
               dir.c_str());
  return 0;
}
