#include "abi/binary.h"

#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>

#include "util/fs.h"
#include "util/hash.h"
#include "util/prelude.h"

namespace kb::abi {

namespace {

Error malformed(const fs::path& path, const std::string& what) {
  return Error(ErrorKind::io, "Cannot read `" + path.string() + "`").with_cause(what);
}

std::string elf_architecture(const GElf_Ehdr& header) {
  switch (header.e_machine) {
    case EM_X86_64: return "x86_64";
    case EM_AARCH64: return "aarch64";
    case EM_386: return "i686";
    case EM_PPC64: return header.e_ident[EI_DATA] == ELFDATA2LSB ? "ppc64le" : "ppc64";
    case EM_S390: return "s390x";
    default: return "machine " + std::to_string(header.e_machine);
  }
}

// Closes the descriptor and the libelf handle on every path.
struct ElfHandle {
  int fd = -1;
  Elf* elf = nullptr;
  ~ElfHandle() {
    if (elf) elf_end(elf);
    if (fd >= 0) ::close(fd);
  }
};

// The sections the dynamic readers walk, found in one pass over the section headers (null when absent).
struct DynamicSections {
  Elf_Scn* dynsym = nullptr;
  Elf_Scn* versym = nullptr;
  Elf_Scn* verneed = nullptr;
  Elf_Scn* verdef = nullptr;
  Elf_Scn* dynamic = nullptr;
  GElf_Shdr dynsym_header{}, verneed_header{}, verdef_header{}, dynamic_header{};
};

Result<DynamicSections> find_dynamic_sections(Elf* elf, const fs::path& path) {
  DynamicSections out;
  for (Elf_Scn* section = elf_nextscn(elf, nullptr); section; section = elf_nextscn(elf, section)) {
    GElf_Shdr header;
    if (!gelf_getshdr(section, &header)) return malformed(path, elf_errmsg(-1));
    if (header.sh_type == SHT_DYNSYM) out.dynsym = section, out.dynsym_header = header;
    if (header.sh_type == SHT_GNU_versym) out.versym = section;
    if (header.sh_type == SHT_GNU_verneed) out.verneed = section, out.verneed_header = header;
    if (header.sh_type == SHT_GNU_verdef) out.verdef = section, out.verdef_header = header;
    if (header.sh_type == SHT_DYNAMIC) out.dynamic = section, out.dynamic_header = header;
  }
  return out;
}

// Calls `visit(symbol, name, version)` for every named .dynsym entry after the null one; `version`
// is the symbol's .gnu.version entry when the file has that section.
template <class Visit>
util::Status for_each_dynamic_symbol(Elf* elf, const DynamicSections& sections, const fs::path& path, Visit visit) {
  Elf_Data* symbols = elf_getdata(sections.dynsym, nullptr);
  Elf_Data* versions = sections.versym ? elf_getdata(sections.versym, nullptr) : nullptr;
  const GElf_Shdr& header = sections.dynsym_header;
  size_t count = header.sh_entsize ? header.sh_size / header.sh_entsize : 0;
  for (size_t i = 1; symbols && i < count; ++i) {
    GElf_Sym symbol;
    if (!gelf_getsym(symbols, static_cast<int>(i), &symbol)) return malformed(path, "bad .dynsym");
    const char* name = elf_strptr(elf, header.sh_link, symbol.st_name);
    if (!name || !*name) continue;
    std::optional<GElf_Versym> version;
    if (GElf_Versym entry; versions && gelf_getversym(versions, static_cast<int>(i), &entry)) version = entry;
    visit(symbol, name, version);
  }
  return {};
}

// Opens `path` for reading with libelf into `handle`; whether it is an ELF file is the caller's check.
util::Status open_elf(const fs::path& path, ElfHandle& handle) {
  if (elf_version(EV_CURRENT) == EV_NONE) return Error(ErrorKind::io, "libelf is out of date");
  handle.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (handle.fd < 0) return Error(ErrorKind::io, "Cannot open `" + path.string() + "` for reading").with_cause(std::strerror(errno));
  handle.elf = elf_begin(handle.fd, ELF_C_READ, nullptr);
  return {};
}

Result<BinaryInfo> read_elf_handle(Elf* elf, const fs::path& path) {
  if (!elf || elf_kind(elf) != ELF_K_ELF) return malformed(path, "not a valid ELF file");
  GElf_Ehdr header;
  if (!gelf_getehdr(elf, &header)) return malformed(path, elf_errmsg(-1));

  BinaryInfo info;
  info.format = Format::elf;
  info.format_name = "ELF";
  info.architecture = elf_architecture(header);

  KB_TRY_ASSIGN(auto sections, find_dynamic_sections(elf, path));
  const DynamicSections& found = sections;
  if (found.dynamic) {
    Elf_Data* data = elf_getdata(found.dynamic, nullptr);
    size_t count = found.dynamic_header.sh_entsize ? found.dynamic_header.sh_size / found.dynamic_header.sh_entsize : 0;
    for (size_t i = 0; data && i < count; ++i) {
      GElf_Dyn entry;
      if (!gelf_getdyn(data, static_cast<int>(i), &entry)) return malformed(path, "bad .dynamic");
      if (entry.d_tag == DT_NULL) break;
      if (entry.d_tag != DT_NEEDED && entry.d_tag != DT_RPATH && entry.d_tag != DT_RUNPATH) continue;
      const char* text = elf_strptr(elf, found.dynamic_header.sh_link, entry.d_un.d_val);
      if (!text) return malformed(path, "bad .dynamic string");
      if (entry.d_tag == DT_NEEDED) {
        info.needed.emplace_back(text);
        continue;
      }
      auto& list = entry.d_tag == DT_RPATH ? info.rpath : info.runpath;
      std::string_view rest(text);
      while (true) {
        size_t colon = rest.find(':');
        list.emplace_back(rest.substr(0, colon));
        if (colon == std::string_view::npos) break;
        rest.remove_prefix(colon + 1);
      }
    }
  }
  if (!found.dynsym) return info;  // a static object imports nothing dynamically

  // Version index -> (required version name, the file that must define it), from .gnu.version_r.
  std::map<unsigned, std::pair<std::string, std::string>> needed_versions;
  if (found.verneed) {
    Elf_Data* data = elf_getdata(found.verneed, nullptr);
    size_t offset = 0;
    for (size_t n = 0; data && n < found.verneed_header.sh_info; ++n) {
      GElf_Verneed need;
      if (!gelf_getverneed(data, static_cast<int>(offset), &need)) return malformed(path, "bad .gnu.version_r");
      const char* file = elf_strptr(elf, found.verneed_header.sh_link, need.vn_file);
      size_t aux_offset = offset + need.vn_aux;
      for (unsigned a = 0; a < need.vn_cnt; ++a) {
        GElf_Vernaux aux;
        if (!gelf_getvernaux(data, static_cast<int>(aux_offset), &aux)) return malformed(path, "bad .gnu.version_r");
        const char* name = elf_strptr(elf, found.verneed_header.sh_link, aux.vna_name);
        if (name) needed_versions[aux.vna_other & 0x7fff] = {name, file ? file : ""};
        if (aux.vna_next == 0) break;
        aux_offset += aux.vna_next;
      }
      if (need.vn_next == 0) break;
      offset += need.vn_next;
    }
  }

  auto imports = for_each_dynamic_symbol(elf, found, path, [&](const GElf_Sym& symbol, const char* name,
                                                                std::optional<GElf_Versym> version) {
    if (symbol.st_shndx != SHN_UNDEF) return;
    ImportedSymbol imported{name, std::nullopt, std::nullopt};
    if (version) {
      auto needed = needed_versions.find(*version & 0x7fff);
      if (needed != needed_versions.end()) {
        imported.version = needed->second.first;
        if (!needed->second.second.empty()) imported.library = needed->second.second;
      }
    }
    info.imports.push_back(std::move(imported));
  });
  if (!imports) return std::move(imports).error();
  return info;
}

Result<BinaryInfo> read_elf(const fs::path& path) {
  ElfHandle handle;
  if (auto opened = open_elf(path, handle); !opened) return std::move(opened).error();
  return read_elf_handle(handle.elf, path);
}

Result<BinaryInfo> read_elf_memory(std::string_view bytes, const fs::path& label) {
  if (elf_version(EV_CURRENT) == EV_NONE) return Error(ErrorKind::io, "libelf is out of date");
  std::string copy(bytes);  // elf_memory wants a mutable buffer that outlives the handle
  ElfHandle handle;
  handle.elf = elf_memory(copy.data(), copy.size());
  return read_elf_handle(handle.elf, label);
}

// Little-endian fixed-width reads from a byte buffer, bounds-checked by the caller's `fits`.
uint32_t u32(std::string_view bytes, size_t at) {
  uint32_t value;
  std::memcpy(&value, bytes.data() + at, 4);
  return value;
}

std::string version_text(uint32_t packed) {
  return std::to_string(packed >> 16) + "." + std::to_string((packed >> 8) & 0xff) + "." + std::to_string(packed & 0xff);
}

Result<BinaryInfo> read_macho(const fs::path& path, std::string_view bytes, bool is64) {
  constexpr uint32_t kSymtab = 0x2, kVersionMinMacos = 0x24, kBuildVersion = 0x32;
  auto fits = [&](size_t at, size_t size) { return at <= bytes.size() && size <= bytes.size() - at; };
  const size_t header_size = is64 ? 32 : 28;
  if (!fits(0, header_size)) return malformed(path, "truncated Mach-O header");
  BinaryInfo info;
  info.format = is64 ? Format::macho64 : Format::macho32;
  info.format_name = is64 ? "Mach-O 64-bit" : "Mach-O 32-bit";
  info.architecture = "cputype " + std::to_string(u32(bytes, 4));
  uint32_t ncmds = u32(bytes, 16);
  size_t at = header_size;
  std::optional<std::string> version_min;
  for (uint32_t c = 0; c < ncmds; ++c) {
    if (!fits(at, 8)) return malformed(path, "truncated load command");
    uint32_t cmd = u32(bytes, at), size = u32(bytes, at + 4);
    if (size < 8 || !fits(at, size)) return malformed(path, "bad load command size");
    if (cmd == kBuildVersion && size >= 16) info.macos_minos = version_text(u32(bytes, at + 12));
    if (cmd == kVersionMinMacos && size >= 16) version_min = version_text(u32(bytes, at + 8));
    if (cmd == kSymtab && size >= 24) {
      uint32_t symoff = u32(bytes, at + 8), nsyms = u32(bytes, at + 12), stroff = u32(bytes, at + 16),
               strsize = u32(bytes, at + 20);
      const size_t entry = is64 ? 16 : 12;
      if (!fits(symoff, static_cast<size_t>(nsyms) * entry) || !fits(stroff, strsize)) {
        return malformed(path, "symbol table out of bounds");
      }
      for (uint32_t s = 0; s < nsyms; ++s) {
        size_t base = symoff + static_cast<size_t>(s) * entry;
        uint32_t strx = u32(bytes, base);
        auto type = static_cast<uint8_t>(bytes[base + 4]);
        // Undefined external symbols: no stab bits, type N_UNDF, N_EXT set.
        if ((type & 0xe0) != 0 || (type & 0x0e) != 0 || (type & 0x01) == 0 || strx >= strsize) continue;
        const char* start = bytes.data() + stroff + strx;
        std::string name(start, strnlen(start, strsize - strx));
        if (!name.empty() && name[0] == '_') name.erase(0, 1);
        if (!name.empty()) info.imports.push_back({std::move(name), std::nullopt, std::nullopt});
      }
    }
    at += size;
  }
  // Ours also accepts the older LC_VERSION_MIN_MACOSX (docs/abi-check.md MAY).
  if (!info.macos_minos) info.macos_minos = version_min;
  return info;
}

Result<LibraryDefinitions> read_definitions_handle(Elf* elf, const fs::path& path) {
  if (!elf || elf_kind(elf) != ELF_K_ELF) return malformed(path, "not a valid ELF file");
  KB_TRY_ASSIGN(auto sections, find_dynamic_sections(elf, path));
  const DynamicSections& found = sections;
  LibraryDefinitions out;
  if (found.dynamic) {
    Elf_Data* data = elf_getdata(found.dynamic, nullptr);
    size_t count = found.dynamic_header.sh_entsize ? found.dynamic_header.sh_size / found.dynamic_header.sh_entsize : 0;
    for (size_t i = 0; data && i < count; ++i) {
      GElf_Dyn entry;
      if (!gelf_getdyn(data, static_cast<int>(i), &entry) || entry.d_tag == DT_NULL) break;
      if (entry.d_tag == DT_SONAME) {
        const char* text = elf_strptr(elf, found.dynamic_header.sh_link, entry.d_un.d_val);
        if (text) out.soname = text;
      }
    }
  }
  if (!found.dynsym) return out;
  // Version index -> version name, from .gnu.version_d (index 1 is the file itself).
  std::map<unsigned, std::string> defined_versions;
  if (found.verdef) {
    Elf_Data* data = elf_getdata(found.verdef, nullptr);
    size_t offset = 0;
    for (size_t n = 0; data && n < found.verdef_header.sh_info; ++n) {
      GElf_Verdef def;
      if (!gelf_getverdef(data, static_cast<int>(offset), &def)) return malformed(path, "bad .gnu.version_d");
      GElf_Verdaux aux;
      if (def.vd_cnt > 0 && gelf_getverdaux(data, static_cast<int>(offset + def.vd_aux), &aux)) {
        const char* name = elf_strptr(elf, found.verdef_header.sh_link, aux.vda_name);
        if (name) {
          defined_versions[def.vd_ndx] = name;
          if (!(def.vd_flags & VER_FLG_BASE)) out.versions.emplace_back(name);
        }
      }
      if (def.vd_next == 0) break;
      offset += def.vd_next;
    }
  }
  auto symbols = for_each_dynamic_symbol(elf, found, path, [&](const GElf_Sym& symbol, const char* name,
                                                                std::optional<GElf_Versym> version) {
    if (symbol.st_shndx == SHN_UNDEF || symbol.st_shndx == SHN_ABS) return;  // ABS: version-node names
    int binding = GELF_ST_BIND(symbol.st_info);
    if (binding != STB_GLOBAL && binding != STB_WEAK) return;
    DefinedSymbol defined;
    defined.name = name;
    defined.size = symbol.st_size;
    switch (GELF_ST_TYPE(symbol.st_info)) {
      case STT_FUNC:
      case STT_GNU_IFUNC: defined.type = DefinedSymbol::Type::function; break;
      case STT_OBJECT: defined.type = DefinedSymbol::Type::object; break;
      case STT_TLS: defined.type = DefinedSymbol::Type::tls; break;
      default: break;
    }
    if (version) {
      auto defined_version = defined_versions.find(*version & 0x7fff);
      if (defined_version != defined_versions.end() && defined_version->first != 1) {
        defined.version = defined_version->second;
      }
      defined.is_default = (*version & 0x8000) == 0;
    }
    out.symbols.push_back(std::move(defined));
  });
  if (!symbols) return std::move(symbols).error();
  std::sort(out.symbols.begin(), out.symbols.end(), [](const DefinedSymbol& a, const DefinedSymbol& b) {
    return std::tie(a.name, a.version) < std::tie(b.name, b.version);
  });
  return out;
}

}  // namespace

Result<LibraryDefinitions> read_definitions(const fs::path& path) {
  ElfHandle handle;
  if (auto opened = open_elf(path, handle); !opened) return std::move(opened).error();
  return read_definitions_handle(handle.elf, path);
}

Result<std::vector<std::pair<std::string, std::string>>> read_sections(const fs::path& path) {
  ElfHandle handle;
  if (auto opened = open_elf(path, handle); !opened) return std::move(opened).error();
  if (!handle.elf || elf_kind(handle.elf) != ELF_K_ELF) return malformed(path, "not a valid ELF file");
  size_t names = 0;
  if (elf_getshdrstrndx(handle.elf, &names) != 0) return malformed(path, elf_errmsg(-1));
  std::vector<std::pair<std::string, std::string>> out;
  for (Elf_Scn* section = elf_nextscn(handle.elf, nullptr); section; section = elf_nextscn(handle.elf, section)) {
    GElf_Shdr header;
    if (!gelf_getshdr(section, &header)) return malformed(path, elf_errmsg(-1));
    const char* name = elf_strptr(handle.elf, names, header.sh_name);
    std::string bytes;
    if (header.sh_type != SHT_NOBITS) {
      for (Elf_Data* data = elf_rawdata(section, nullptr); data; data = elf_rawdata(section, data)) {
        if (data->d_buf) bytes.append(static_cast<const char*>(data->d_buf), data->d_size);
      }
    }
    out.emplace_back(name ? name : "", std::move(bytes));
  }
  return out;
}

util::Status derive_build_id(const fs::path& path) {
  uint64_t id_offset = 0;
  size_t id_size = 0;
  {
    ElfHandle handle;
    if (auto opened = open_elf(path, handle); !opened) return std::move(opened).error();
    if (!handle.elf || elf_kind(handle.elf) != ELF_K_ELF) return {};
    size_t names = 0;
    if (elf_getshdrstrndx(handle.elf, &names) != 0) return malformed(path, elf_errmsg(-1));
    for (Elf_Scn* section = elf_nextscn(handle.elf, nullptr); section && id_size == 0; section = elf_nextscn(handle.elf, section)) {
      GElf_Shdr header;
      if (!gelf_getshdr(section, &header)) return malformed(path, elf_errmsg(-1));
      const char* name = elf_strptr(handle.elf, names, header.sh_name);
      if (header.sh_type != SHT_NOTE || !name || std::strcmp(name, ".note.gnu.build-id") != 0) continue;
      Elf_Data* data = elf_rawdata(section, nullptr);
      if (!data) return malformed(path, "unreadable .note.gnu.build-id");
      GElf_Nhdr note;
      size_t name_offset = 0, desc_offset = 0;
      if (gelf_getnote(data, 0, &note, &name_offset, &desc_offset) == 0 || note.n_type != NT_GNU_BUILD_ID) {
        return malformed(path, "unreadable .note.gnu.build-id");
      }
      id_offset = header.sh_offset + desc_offset;
      id_size = note.n_descsz;
    }
  }
  if (id_size == 0) return {};
  if (id_size > 32) return malformed(path, "a build id longer than 32 bytes");
  KB_TRY_ASSIGN(auto bytes, util::read_file(path));
  if (id_offset + id_size > bytes.size()) return malformed(path, "a build id outside the file");
  std::fill_n(bytes.begin() + static_cast<std::ptrdiff_t>(id_offset), id_size, '\0');
  std::string digest = util::hash_bytes(util::HashAlgorithm::sha256, bytes);
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Error(ErrorKind::io, "Cannot open `" + path.string() + "` for writing").with_cause(std::strerror(errno));
  ssize_t written = ::pwrite(fd, digest.data(), id_size, static_cast<off_t>(id_offset));
  int saved = errno;
  ::close(fd);
  if (written != static_cast<ssize_t>(id_size)) {
    return Error(ErrorKind::io, "Cannot write the build id of `" + path.string() + "`").with_cause(std::strerror(saved));
  }
  return {};
}

namespace {

enum class Sniffed { elf, macho64, macho32, other };

Sniffed sniff(std::string_view head) {
  if (head.size() >= 4 && head.substr(0, 4) == std::string_view("\x7f" "ELF", 4)) return Sniffed::elf;
  if (head.size() < 4) return Sniffed::other;
  uint32_t word = u32(head, 0);
  if (word == 0xfeedfacf) return Sniffed::macho64;
  if (word == 0xfeedface) return Sniffed::macho32;
  return Sniffed::other;
}

BinaryInfo other_format(std::string_view head) {
  BinaryInfo other;
  uint32_t word = head.size() >= 4 ? u32(head, 0) : 0;
  other.format_name = (word == 0xbebafeca || word == 0xcafebabe) ? "Mach-O universal"
                      : (head.size() >= 2 && head[0] == 'M' && head[1] == 'Z') ? "PE"
                                                                              : "unknown";
  return other;
}

Result<BinaryInfo> sorted(Result<BinaryInfo> result) {
  if (!result) return result;
  std::sort(result->imports.begin(), result->imports.end(), [](const ImportedSymbol& a, const ImportedSymbol& b) {
    return std::tie(a.name, a.version) < std::tie(b.name, b.version);
  });
  return result;
}

}  // namespace

Result<BinaryInfo> read_binary(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(ErrorKind::io, "Cannot open `" + path.string() + "` for reading");
  char head[4] = {};
  in.read(head, 4);
  std::string_view magic(head, static_cast<size_t>(in.gcount()));
  switch (sniff(magic)) {
    case Sniffed::elf:
      return sorted(read_elf(path));  // libelf reads the file itself, lazily
    case Sniffed::macho64:
    case Sniffed::macho32: {
      in.seekg(0);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      return parse_binary(bytes, path.string());
    }
    case Sniffed::other:
      break;
  }
  return other_format(magic);
}

Result<BinaryInfo> parse_binary(std::string_view bytes, const std::string& label) {
  switch (sniff(bytes)) {
    case Sniffed::elf: return sorted(read_elf_memory(bytes, label));
    case Sniffed::macho64: return sorted(read_macho(label, bytes, true));
    case Sniffed::macho32: return sorted(read_macho(label, bytes, false));
    case Sniffed::other: break;
  }
  return other_format(bytes);
}

}  // namespace kb::abi
