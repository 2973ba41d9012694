// Header-only build dependencies (see header_deps.h).
#include "builder/header_deps.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <regex>

#include "builder/user_cache.h"
#include "util/fs.h"
#include "util/prelude.h"
#include "util/strings.h"

namespace kb::builder {

namespace {

struct Known {
  std::string display;     // "CUTLASS 4.0"
  std::string variable;    // CUTLASS_SRC_DIR
  std::string marker;      // a header every tree of it has, under include/
  std::string cache_name;  // cutlass-4.0
  std::string source;      // where to get it
};

std::optional<Known> known(const std::string& dependency) {
  static const std::regex cutlass(R"(cutlass_(\d+)_(\d+))");
  std::smatch match;
  if (std::regex_match(dependency, match, cutlass)) {
    std::string version = match[1].str() + "." + match[2].str();
    return Known{"CUTLASS " + version, "CUTLASS_SRC_DIR", "cutlass/cutlass.h", "cutlass-" + version,
                 "a checkout of https://github.com/NVIDIA/cutlass at tag v" + version + ".x"};
  }
  if (dependency == "sycl_tla") {
    return Known{"sycl-tla", "SYCL_TLA_SRC_DIR", "cutlass/cutlass.h", "sycl-tla",
                 "a checkout of https://github.com/intel/sycl-tla"};
  }
  if (dependency == "metal-cpp") {
    return Known{"metal-cpp", "METAL_CPP_SRC_DIR", "Metal/Metal.hpp", "metal-cpp",
                 "Apple's metal-cpp archive (https://developer.apple.com/metal/cpp/)"};
  }
  return std::nullopt;
}

// The `include` directory of a source tree (or the tree itself when it is one, or a directory an
// nvidia-cutlass wheel was installed into with `pip install --target`).
std::optional<fs::path> include_dir_of(const fs::path& tree, const std::string& marker) {
  std::error_code ec;
  for (const fs::path& candidate : {tree / "include", tree, tree / "cutlass_library" / "source" / "include"}) {
    if (fs::is_regular_file(candidate / marker, ec)) return candidate;
  }
  return std::nullopt;
}

// "4.0" from cutlass/version.h (CUTLASS_MAJOR / CUTLASS_MINOR), if readable.
std::optional<std::string> cutlass_version(const fs::path& include_dir) {
  auto text = util::read_file(include_dir / "cutlass" / "version.h");
  if (!text) return std::nullopt;
  static const std::regex major(R"(#define\s+CUTLASS_MAJOR\s+(\d+))"), minor(R"(#define\s+CUTLASS_MINOR\s+(\d+))");
  std::smatch a, b;
  if (!std::regex_search(*text, a, major) || !std::regex_search(*text, b, minor)) return std::nullopt;
  return a[1].str() + "." + b[1].str();
}

}  // namespace

fs::path default_dependency_cache() { return user_cache_dir() / "deps"; }

std::map<std::string, std::string> dependency_environment() {
  std::map<std::string, std::string> out;
  for (const char* name : {"CUTLASS_SRC_DIR", "SYCL_TLA_SRC_DIR", "METAL_CPP_SRC_DIR"}) {
    if (const char* value = std::getenv(name); value && *value) out[name] = value;
  }
  return out;
}

namespace {

// How to fill the cache entry by hand from the pinned archive (exact paths), if there is one.
std::optional<std::string> prefill_hint(const HeaderArchiveEntry* pinned, const fs::path& entry) {
  if (!pinned || !pinned->archive) return std::nullopt;
  const HeaderArchive& archive = *pinned->archive;
  return "or pre-fill the cache where the network is reachable: download " + archive.url + " (SHA-256 " +
         archive.sha256 + ") and unpack its `" + archive.include_dir + "/` as `" + (entry / "include").string() + "`";
}

}  // namespace

HeaderFetchSettings header_fetch_settings(bool offline) {
  HeaderFetchSettings settings;
  if (const char* table = std::getenv("KERNEL_BUILDER_HEADER_ARCHIVES"); table && *table) settings.table_file = table;
  std::string off = util::to_lower(std::getenv("KERNEL_BUILDER_OFFLINE") ? std::getenv("KERNEL_BUILDER_OFFLINE") : "");
  settings.offline = offline || off == "1" || off == "true" || off == "yes" || off == "on";
  return settings;
}

Result<HeaderDependencies> resolve_header_dependencies(const config::BuildConfig& config, config::Backend backend,
                                                       const std::map<std::string, std::string>& env,
                                                       const fs::path& cache_root, const HeaderFetchSettings* fetch) {
  HeaderDependencies out;
  std::vector<std::string> done;
  std::optional<HeaderArchiveTable> table;  // loaded when a dependency is missing
  for (const auto* unit : config.units_for(backend)) {
    for (const auto& dependency : unit->depends) {
      auto dep = known(dependency);
      if (!dep || std::find(done.begin(), done.end(), dependency) != done.end()) continue;
      done.push_back(dependency);
      std::optional<fs::path> include;
      fs::path entry = cache_root / dep->cache_name;
      auto from_env = env.find(dep->variable);
      if (from_env != env.end()) {
        include = include_dir_of(from_env->second, dep->marker);
        if (!include) {
          return Error(ErrorKind::config, dep->variable + "=`" + from_env->second + "` is not a " + dep->display +
                                              " source tree")
              .with_cause("neither `include/" + dep->marker + "` nor `" + dep->marker + "` exists there")
              .with_hint("point " + dep->variable + " at " + dep->source);
        }
        if (dependency.rfind("cutlass_", 0) == 0) {
          auto found = cutlass_version(*include);
          std::string wanted = dep->display.substr(std::string("CUTLASS ").size());
          if (found && *found != wanted) {
            out.notes.push_back(dep->variable + " has CUTLASS " + *found + ", kernel `" + unit->name + "` names `" +
                                dependency + "`: using it as given");
          }
        }
        out.include_dirs.push_back(*include);
        continue;
      }
      include = include_dir_of(entry, dep->marker);
      if (include) {
        out.include_dirs.push_back(*include);
        continue;
      }
      const HeaderArchiveEntry* pinned = nullptr;
      if (fetch) {
        if (!table) {
          auto loaded = load_header_archive_table(fetch->table_file);
          if (!loaded) return std::move(loaded).error();
          table = std::move(*loaded);
        }
        pinned = table->find(dependency);
      }
      std::string set_hint = "set " + dep->variable + " to " + dep->source;
      if (fetch && pinned && pinned->archive && !fetch->offline) {
        auto fetched = fetch_header_archive(HeaderFetch{dependency, *pinned->archive, entry, dep->marker},
                                            fetch->download, fetch->note);
        if (!fetched) {
          Error error = std::move(fetched).error().context("Cannot fetch the " + dep->display + " headers that kernel `" +
                                                           unit->name + "` depends on (`" + dependency + "`)");
          error.hints.push_back(set_hint);
          if (auto hint = prefill_hint(pinned, entry)) error.hints.push_back(*hint);
          return error;
        }
        include = include_dir_of(entry, dep->marker);
      }
      if (!include) {
        Error error = Error(ErrorKind::not_found, "Kernel `" + unit->name + "` depends on `" + dependency + "`, but no " +
                                               dep->display + " headers were found")
            .with_cause(dep->variable + " is not set, and the dependency cache has no `" + entry.string() + "`");
        if (fetch && fetch->offline && pinned && pinned->archive) {
          error.causes.push_back("downloads are off (--offline or KERNEL_BUILDER_OFFLINE), so the pinned " +
                                 pinned->archive->release + " was not fetched");
        } else if (pinned && !pinned->archive) {
          error.causes.push_back("there is no pinned archive to fetch: " + pinned->unavailable);
        }
        error.hints.push_back(set_hint);
        error.hints.push_back("or unpack it into `" + entry.string() + "` (shared by all projects)");
        if (auto hint = prefill_hint(pinned, entry)) error.hints.push_back(*hint);
        return error;
      }
      out.include_dirs.push_back(*include);
    }
  }
  return out;
}

}  // namespace kb::builder
