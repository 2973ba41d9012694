// What `check-abi` needs from a native file (docs/abi-check.md): its format, its CPU architecture,
// the symbols it imports (with their version requirement, ELF) and, for Mach-O, the minimum macOS
// version. ELF is read with libelf from the dynamic symbol table and its version sections
// (`.dynsym` + `.gnu.version` + `.gnu.version_r`), which also works on stripped files. Mach-O has
// no library in Debian; its header, load commands and symbol table are read here (a few fixed
// little-endian structures, bounds-checked).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.h"

namespace kb::abi {

enum class Format { elf, macho64, macho32, other };

struct ImportedSymbol {
  std::string name;                    // Mach-O names lose one leading '_'
  std::optional<std::string> version;  // ELF version requirement, e.g. "GLIBC_2.14"
  std::optional<std::string> library = std::nullopt;  // ELF: the DT_NEEDED file whose version it needs, e.g. "libc.so.6"
};

struct BinaryInfo {
  Format format = Format::other;
  std::string format_name;   // "ELF", "Mach-O 64-bit", "Mach-O 32-bit", or a description of the file
  std::string architecture;  // ELF: x86_64, aarch64, i686, ppc64, ppc64le, s390x; else the e_machine number
  std::vector<ImportedSymbol> imports;  // sorted by name, then version
  std::vector<std::string> needed;       // ELF DT_NEEDED entries, in file order
  std::vector<std::string> rpath;        // ELF DT_RPATH entries (split at ':')
  std::vector<std::string> runpath;      // ELF DT_RUNPATH entries (split at ':')
  std::optional<std::string> macos_minos;  // LC_BUILD_VERSION minos ("26.0", "15.0.1"), Mach-O only
};

// A symbol an ELF shared library defines, with one of its version definitions.
struct DefinedSymbol {
  std::string name;
  std::string version;     // e.g. "GLIBC_2.2.5"; empty for unversioned symbols
  bool is_default = false;  // the version the linker binds new references to (`name@@version`)
  enum class Type { function, object, tls, other } type = Type::other;
  unsigned long size = 0;
};

struct LibraryDefinitions {
  std::string soname;                  // DT_SONAME, e.g. "libc.so.6"
  std::vector<std::string> versions;   // version definitions (.gnu.version_d), file order, without the file's own name
  std::vector<DefinedSymbol> symbols;  // sorted by name, then version
};

// The dynamic symbols an ELF shared library defines, with their versions (`.dynsym` +
// `.gnu.version` + `.gnu.version_d`); the build uses it to make link stubs of the C library.
util::Result<LibraryDefinitions> read_definitions(const std::filesystem::path& path);

// The sections of an ELF file in file order, name and raw bytes (SHT_NOBITS sections empty); the
// reproducibility check names the first section in which two builds differ.
util::Result<std::vector<std::pair<std::string, std::string>>> read_sections(const std::filesystem::path& path);

// Sets the GNU build-id note (.note.gnu.build-id) of an ELF file to the leading bytes of the
// SHA-256 of the file's own final bytes, with the id itself zeroed. The linker's id covers what it
// wrote, including names that a post-link step removes (nvcc's tmpxft_<pid> symbols), so it
// differs between two otherwise identical builds; the derived one does not. Files without the
// note, and files that are not ELF, are left as they are. Idempotent.
util::Status derive_build_id(const std::filesystem::path& path);

// Reads `path`. Files that are neither ELF nor Mach-O give Format::other (not an error); a
// truncated or malformed ELF/Mach-O file is an error.
util::Result<BinaryInfo> read_binary(const std::filesystem::path& path);

// The same for bytes in memory (`label` names them in errors); the fuzz target's entry point.
util::Result<BinaryInfo> parse_binary(std::string_view bytes, const std::string& label);

}  // namespace kb::abi
