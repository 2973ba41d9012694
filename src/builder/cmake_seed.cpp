// Seeding CMake's compiler identification from the user cache (see cmake_seed.h).
#include "builder/cmake_seed.h"

#include <sys/utsname.h>

#include <algorithm>
#include <optional>
#include <regex>

#include <nlohmann/json.hpp>

#include "builder/user_cache.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/process.h"
#include "util/strings.h"

extern char** environ;

namespace kb::builder {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kSeedFormat = 1;
constexpr size_t kMaxSeeds = 16;

bool compiler_variable(const std::string& name) {
  static const char* const exact[] = {
      "PATH",   "LIBRARY_PATH", "CPATH",    "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH",
      "COMPILER_PATH", "GCC_EXEC_PREFIX", "LD_LIBRARY_PATH", "LD_RUN_PATH", "CC", "CXX", "HIPCXX", "HIPHOSTCXX",
      "OBJC", "OBJCXX", "ASM", "CFLAGS", "CXXFLAGS", "HIPFLAGS", "LDFLAGS", "CPPFLAGS", "OBJCFLAGS",
      "OBJCXXFLAGS", "HIPARCHS", "SDKROOT", "MACOSX_DEPLOYMENT_TARGET", "DEVELOPER_DIR", "LANG", "LANGUAGE",
      "LC_ALL", "LC_MESSAGES", "LC_CTYPE"};
  for (const char* candidate : exact) {
    if (name == candidate) return true;
  }
  // CMAKE_* (toolchain file, generator, ...), CUDA* (CUDACXX, CUDAHOSTCXX, CUDAFLAGS, CUDAARCHS,
  // CUDA_HOME, CUDA_PATH), NVCC_* (NVCC_PREPEND_FLAGS, NVCC_APPEND_FLAGS, NVCC_CCBIN).
  return util::starts_with(name, "CMAKE_") || util::starts_with(name, "CUDA") || util::starts_with(name, "NVCC_");
}

fs::path seed_file(const fs::path& seeds_dir, const std::string& identity) {
  return seeds_dir / ("seed-" + util::sha256_hex(identity).substr(0, 24) + ".json");
}

// "<canonical path> <stamp>": changes when the file changes or the path is pointed elsewhere.
std::string path_stamp(const fs::path& path) {
  std::error_code ec;
  fs::path canonical = fs::canonical(path, ec);
  return (ec ? path : canonical).string() + " " + file_stamp(path);
}

// The stamps a seed is valid under: the cmake program and every regular file its identification
// files name.
json stamps_of(const json& files) {
  json stamps = json::object();
  if (auto cmake = util::find_program("cmake")) stamps[cmake->string()] = path_stamp(*cmake);
  for (const auto& [name, text] : files.items()) {
    if (!text.is_string()) continue;
    for (const auto& path : referenced_paths(text.get<std::string>())) {
      std::error_code ec;
      if (fs::is_regular_file(path, ec)) stamps[path] = path_stamp(path);
    }
  }
  return stamps;
}

bool identification_file(const std::string& name) {
  static const std::regex compiler(R"(CMake[A-Za-z]+Compiler\.cmake)");
  return name == "CMakeSystem.cmake" || std::regex_match(name, compiler);
}

// CMakeFiles/<version> of a configured build directory: the one holding CMakeSystem.cmake.
std::optional<fs::path> identification_dir(const fs::path& cmake_dir) {
  std::error_code ec;
  std::optional<fs::path> found;
  for (const auto& entry : fs::directory_iterator(cmake_dir / "CMakeFiles", ec)) {
    if (!entry.is_directory(ec) || !fs::is_regular_file(entry.path() / "CMakeSystem.cmake", ec)) continue;
    if (found) return std::nullopt;  // two CMake versions configured here: not a clean tree
    found = entry.path();
  }
  return found;
}

}  // namespace

std::string cmake_seed_identity(const std::vector<std::string>& configure, const std::string& languages,
                                const std::map<std::string, std::string>& environment, const std::string& host) {
  std::string out = "kb-cmake-seed " + std::to_string(kSeedFormat) + "\nlanguages " + languages + "\nhost " + host + "\n";
  for (size_t i = 0; i < configure.size(); ++i) {
    const std::string& arg = configure[i];
    if (arg == "-S" || arg == "-B") {
      ++i;
      continue;
    }
    if (util::starts_with(arg, "-DKB_")) continue;
    out += "arg " + arg + "\n";
  }
  for (const auto& [name, value] : environment) {
    if (compiler_variable(name)) out += "env " + name + "=" + value + "\n";
  }
  return out;
}

std::map<std::string, std::string> effective_environment(const std::map<std::string, std::string>& overrides) {
  std::map<std::string, std::string> out;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string text = *entry;
    auto equals = text.find('=');
    if (equals != std::string::npos) out[text.substr(0, equals)] = text.substr(equals + 1);
  }
  for (const auto& [name, value] : overrides) out[name] = value;
  return out;
}

std::string host_release() {
  struct utsname name {};
  if (::uname(&name) != 0) return "unknown";
  return std::string(name.sysname) + " " + name.release + " " + name.machine;
}

std::vector<std::string> seed_cache_entries(const std::string& cmake_cache) {
  static const std::regex entry(
      R"(CMAKE_(ADDR2LINE|AR|DLLTOOL|EXECUTABLE_FORMAT|LINKER|MT|NM|OBJCOPY|OBJDUMP|RANLIB|READELF|STRIP|TAPI|UNAME|)"
      R"(PLATFORM_INFO_INITIALIZED|[A-Z]+_COMPILER|[A-Z]+_COMPILER_AR|[A-Z]+_COMPILER_RANLIB|[A-Z]+_HOST_COMPILER))"
      R"((-ADVANCED)?:[A-Z]+=.*)");
  std::vector<std::string> out;
  for (const auto& line : util::split(cmake_cache, '\n')) {
    if (std::regex_match(line, entry)) out.push_back(line);
  }
  return out;
}

std::vector<std::string> referenced_paths(const std::string& cmake_file) {
  static const std::regex set_line(R"(^\s*set\(\s*[A-Za-z0-9_]+\s+"([^"]*)\"\s*\))");
  std::vector<std::string> out;
  for (const auto& line : util::split(cmake_file, '\n')) {
    std::smatch match;
    if (!std::regex_search(line, match, set_line)) continue;
    for (const auto& item : util::split(match[1].str(), ';')) {
      if (util::starts_with(item, "/") && std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
    }
  }
  return out;
}

fs::path apply_cmake_seed(const fs::path& seeds_dir, const std::string& identity, const fs::path& cmake_dir) {
  fs::path file = seed_file(seeds_dir, identity);
  auto text = util::read_file(file);
  if (!text) return {};
  json seed = json::parse(*text, nullptr, false);
  if (seed.is_discarded() || !seed.is_object() || seed.value("format_version", 0) != kSeedFormat ||
      seed.value("identity", "") != identity) {
    return {};
  }
  auto files = seed.find("files");
  auto entries = seed.find("cache_entries");
  auto stamps = seed.find("stamps");
  std::string version = seed.value("cmake_files_dir", "");
  if (files == seed.end() || !files->is_object() || entries == seed.end() || !entries->is_array() ||
      stamps == seed.end() || !stamps->is_object() || version.empty() || version.find('/') != std::string::npos ||
      version == "." || version == "..") {
    return {};
  }
  for (const auto& [name, content] : files->items()) {
    if (!identification_file(name) || !content.is_string()) return {};
  }
  if (!files->contains("CMakeSystem.cmake")) return {};
  if (*stamps != stamps_of(*files)) return {};  // a compiler, binutils or cmake changed
  std::string cache = "# Compiler identification seeded by kernel-builder from " + file.string() + "\n";
  for (const auto& line : *entries) {
    if (!line.is_string()) return {};
    cache += line.get<std::string>() + "\n";
  }
  fs::path dir = cmake_dir / "CMakeFiles" / version;
  for (const auto& [name, content] : files->items()) {
    if (!util::write_file_atomic(dir / name, content.get<std::string>())) return {};
  }
  if (!util::write_file_atomic(cmake_dir / "CMakeCache.txt", cache)) return {};
  return file;
}

util::Status save_cmake_seed(const fs::path& seeds_dir, const std::string& identity, const fs::path& cmake_dir) {
  auto dir = identification_dir(cmake_dir);
  if (!dir) return {};
  auto cache = util::read_file(cmake_dir / "CMakeCache.txt");
  if (!cache) return {};
  json files = json::object();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(*dir, ec)) {
    std::string name = entry.path().filename().string();
    if (!entry.is_regular_file(ec) || !identification_file(name)) continue;
    auto content = util::read_file(entry.path());
    if (!content) return {};
    files[name] = *content;
  }
  auto entries = seed_cache_entries(*cache);
  bool initialized = std::any_of(entries.begin(), entries.end(), [](const std::string& line) {
    return util::starts_with(line, "CMAKE_PLATFORM_INFO_INITIALIZED:");
  });
  if (!files.contains("CMakeSystem.cmake") || files.size() < 2 || !initialized) return {};
  json seed = {{"format_version", kSeedFormat},
               {"identity", identity},
               {"cmake_files_dir", dir->filename().string()},
               {"files", files},
               {"cache_entries", entries},
               {"stamps", stamps_of(files)}};
  KB_TRY(util::write_file_atomic(seed_file(seeds_dir, identity), seed.dump(1)));
  prune_oldest_files(seeds_dir, ".json", kMaxSeeds);
  return {};
}

void forget_cmake_seed(const fs::path& seeds_dir, const std::string& identity) {
  std::error_code ec;
  fs::remove(seed_file(seeds_dir, identity), ec);
}

}  // namespace kb::builder
