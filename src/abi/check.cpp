#include "abi/check.h"

#include <cxxabi.h>
#include <fnmatch.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "util/embedded.h"
#include "util/fs.h"
#include "util/prelude.h"
#include "util/strings.h"

namespace kb::abi::data {
const std::vector<kb::util::EmbeddedFile>& embedded_files();
}

namespace kb::abi {

namespace {

const nlohmann::json& table(std::string_view name) {
  static const std::map<std::string, nlohmann::json, std::less<>> tables = [] {
    std::map<std::string, nlohmann::json, std::less<>> out;
    for (const auto& file : data::embedded_files()) out.emplace(std::string(file.path), nlohmann::json::parse(file.content));
    return out;
  }();
  return tables.find(name)->second;
}

bool is_dotted_number(const std::string& text) {
  static const std::regex pattern(R"(\d+(\.\d+)*)");
  return std::regex_match(text, pattern);
}

std::vector<long> components(const std::string& version) {
  std::vector<long> out;
  for (const auto& part : util::split(version, '.')) out.push_back(std::strtol(part.c_str(), nullptr, 10));
  return out;
}

// The policy's allowed versions per dependency, numeric entries normalised.
using Policy = std::map<std::string, std::set<std::string>>;

const nlohmann::json& policy_table() { return table("manylinux-policy.json").at("policies"); }

Result<Policy> load_policy(const std::string& requested, const std::string& architecture) {
  KB_TRY_ASSIGN(auto name, canonical_policy(requested));
  static const std::set<std::string> supported = {"x86_64", "aarch64", "i686", "ppc64", "ppc64le", "s390x"};
  if (!supported.count(architecture)) return Error(ErrorKind::config, "Unsupported architecture: " + architecture);
  const auto& by_arch = policy_table().at(name).at("symbol_versions");
  if (!by_arch.contains(architecture)) {
    return Error(ErrorKind::config, "No " + name + " policy data for architecture " + architecture + " in this build");
  }
  Policy policy;
  for (const auto& [dep, versions] : by_arch.at(architecture).items()) {
    auto& allowed = policy[dep];  // an empty list (LIBATOMIC before 2_17) still names the dependency
    for (const auto& v : versions) {
      std::string text = v.get<std::string>();
      allowed.insert(is_dotted_number(text) ? normalise_version(text) : text);
    }
  }
  return policy;
}

// Symbol-version violations of `binary` under `policy` (docs/abi-check.md rule).
std::vector<Violation> symbol_violations(const BinaryInfo& binary, const Policy& policy) {
  std::vector<Violation> out;
  for (const auto& symbol : binary.imports) {
    if (!symbol.version) continue;
    size_t cut = symbol.version->find('_');
    if (cut == std::string::npos) continue;
    std::string dep = symbol.version->substr(0, cut), ver = symbol.version->substr(cut + 1);
    auto allowed = policy.find(dep);
    if (allowed == policy.end()) continue;
    std::string key = is_dotted_number(ver) ? normalise_version(ver) : ver;
    if (!allowed->second.count(key)) {
      out.push_back({ViolationKind::manylinux, symbol.name, *symbol.version, symbol.library.value_or("")});
    }
  }
  return out;
}

const std::vector<std::string>& runtime_library_patterns() {
  static const std::vector<std::string> patterns = [] {
    std::vector<std::string> out;
    for (const auto& [group, names] : table("runtime-libraries.json").at("libraries").items()) {
      for (const auto& name : names) out.push_back(name.get<std::string>());
    }
    return out;
  }();
  return patterns;
}

// DT_NEEDED entries outside the policy's allow-list and the framework runtime, and run paths
// that are not relative to the module ($ORIGIN).
std::vector<Violation> library_violations(const BinaryInfo& binary, const std::string& policy_name) {
  std::vector<Violation> out;
  const auto& whitelist = policy_table().at(policy_name).at("lib_whitelist");
  for (const auto& needed : binary.needed) {
    bool allowed = std::find(whitelist.begin(), whitelist.end(), needed) != whitelist.end();
    for (const auto& pattern : runtime_library_patterns()) {
      if (allowed) break;
      allowed = ::fnmatch(pattern.c_str(), needed.c_str(), 0) == 0;
    }
    if (!allowed) out.push_back({ViolationKind::library, needed, ""});
  }
  auto paths = [&](const std::vector<std::string>& entries, const char* tag) {
    for (const auto& entry : entries) {
      if (entry.empty() || util::starts_with(entry, "$ORIGIN") || util::starts_with(entry, "${ORIGIN}")) continue;
      out.push_back({ViolationKind::run_path, entry, tag});
    }
  };
  paths(binary.rpath, "RPATH");
  paths(binary.runpath, "RUNPATH");
  return out;
}

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(::abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && text ? std::string(text.get()) : std::string();
}

// The qualified function name of a demangled symbol: the text before the parameter list, after
// a return type if one precedes it (template instances), e.g. "void c10::f<int>(int)" -> "c10::f<int>".
std::string qualified_name(const std::string& demangled) {
  int depth = 0;
  size_t end = demangled.size(), last_space = std::string::npos;
  for (size_t i = 0; i < demangled.size(); ++i) {
    char c = demangled[i];
    if (c == '<') ++depth;
    if (c == '>') --depth;
    if (depth == 0 && c == '(') {
      end = i;
      break;
    }
    if (depth == 0 && c == ' ') last_space = i;
  }
  size_t begin = last_space == std::string::npos ? 0 : last_space + 1;
  return demangled.substr(begin, end - begin);
}

bool in_unstable_torch_namespace(const std::string& text) {
  if (util::starts_with(text, "torch::stable::")) return false;
  return util::starts_with(text, "c10::") || util::starts_with(text, "at::") || util::starts_with(text, "torch::");
}

}  // namespace

std::vector<std::string> manylinux_policies() {
  std::vector<std::pair<long, std::string>> ranked;
  for (const auto& [name, policy] : policy_table().items()) ranked.emplace_back(-policy.at("priority").get<long>(), name);
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> out;
  for (auto& [priority, name] : ranked) out.push_back(std::move(name));
  return out;
}

Result<std::string> canonical_policy(const std::string& name) {
  const auto& policies = policy_table();
  if (policies.contains(name)) return name;
  std::vector<std::string> aliases;
  for (const auto& [canonical, policy] : policies.items()) {
    for (const auto& alias : policy.at("aliases")) {
      if (alias.get<std::string>() == name) return canonical;
      aliases.push_back(alias.get<std::string>());
    }
  }
  std::sort(aliases.begin(), aliases.end());
  return Error(ErrorKind::usage, "Unknown manylinux version: " + name)
      .with_hint("policies with data in this build: " + util::join(manylinux_policies(), ", ") + " (aliases " +
                 util::join(aliases, ", ") + ")");
}

std::string default_policy_for_torch(const std::string& torch_major_minor) {
  std::string policy;
  for (const auto& entry : table("manylinux-policy.json").at("torch")) {
    if (compare_versions(torch_major_minor, entry.at("torch_from").get<std::string>()) >= 0) {
      policy = entry.at("policy").get<std::string>();
    }
  }
  if (policy.empty()) policy = table("manylinux-policy.json").at("torch").front().at("policy").get<std::string>();
  return policy;
}

Result<std::string> policy_glibc_ceiling(const std::string& policy, const std::string& architecture) {
  KB_TRY_ASSIGN(auto allowed, load_policy(policy, architecture));
  std::string newest;
  for (const auto& version : allowed["GLIBC"]) {
    if (is_dotted_number(version) && (newest.empty() || compare_versions(version, newest) > 0)) newest = version;
  }
  return newest;
}

Result<bool> policy_allows(const std::string& policy, const std::string& architecture, const std::string& version) {
  KB_TRY_ASSIGN(auto allowed, load_policy(policy, architecture));
  BinaryInfo probe;
  probe.imports.push_back({"probe", version});
  return symbol_violations(probe, allowed).empty();
}

std::string describe(const Violation& v) {
  switch (v.kind) {
    case ViolationKind::manylinux:
      return v.symbol + "@" + v.detail + (v.library.empty() ? "" : " (" + v.library + ")");
    case ViolationKind::library:
      return v.symbol + ": not on every manylinux system; link it statically or depend on the wheel that ships it";
    case ViolationKind::run_path:
      return v.detail + " " + v.symbol + ": points into the build machine; use $ORIGIN-relative paths or none";
    default:
      return v.detail.empty() ? v.symbol : v.symbol + ": " + v.detail;
  }
}

std::string normalise_version(const std::string& version) {
  if (!is_dotted_number(version)) return version;
  auto parts = util::split(version, '.');
  while (parts.size() > 1 && std::strtol(parts.back().c_str(), nullptr, 10) == 0) parts.pop_back();
  std::vector<std::string> cleaned;
  for (const auto& p : parts) cleaned.push_back(std::to_string(std::strtol(p.c_str(), nullptr, 10)));
  return util::join(cleaned, ".");
}

int compare_versions(const std::string& a, const std::string& b) {
  auto x = components(a), y = components(b);
  size_t n = std::max(x.size(), y.size());
  x.resize(n, 0);
  y.resize(n, 0);
  return x < y ? -1 : (x > y ? 1 : 0);
}

Result<std::vector<Violation>> check_binary(const BinaryInfo& binary, const CheckOptions& options) {
  std::vector<Violation> out;
  if (binary.format == Format::elf) {
    KB_TRY_ASSIGN(auto policy, load_policy(options.manylinux, binary.architecture));
    out = symbol_violations(binary, policy);
    if (options.libraries) {
      auto libraries = library_violations(binary, *canonical_policy(options.manylinux));
      out.insert(out.end(), libraries.begin(), libraries.end());
    }
  } else if (binary.format == Format::macho64) {
    if (!binary.macos_minos) {
      out.push_back({ViolationKind::macos_missing, "", ""});
    } else if (compare_versions(*binary.macos_minos, options.macos) > 0) {
      out.push_back({ViolationKind::macos_newer, normalise_version(*binary.macos_minos), ""});
    }
  }

  const auto& python = table("python-stable-abi.json").at("symbols");
  const auto& torch = table("torch-stable-abi.json").at("symbols");
  std::set<std::string> seen;
  for (const auto& symbol : binary.imports) {
    if (!seen.insert(symbol.name).second) continue;
    if (auto entry = python.find(symbol.name); entry != python.end()) {
      std::string added = entry->get<std::string>();
      if (compare_versions(added, options.python_abi) > 0) out.push_back({ViolationKind::python_newer, symbol.name, added});
    } else if (util::starts_with(symbol.name, "Py") || util::starts_with(symbol.name, "_Py")) {
      out.push_back({ViolationKind::python_not_abi3, symbol.name, ""});
    }
    if (!options.torch_stable_abi) continue;
    if (auto entry = torch.find(symbol.name); entry != torch.end()) {
      std::string added = entry->get<std::string>();
      if (compare_versions(added, *options.torch_stable_abi) > 0) {
        out.push_back({ViolationKind::torch_unstable, symbol.name, added});
      }
      continue;
    }
    std::string demangled = demangle(symbol.name);
    if (demangled.empty()) continue;
    if (in_unstable_torch_namespace(demangled) || in_unstable_torch_namespace(qualified_name(demangled))) {
      out.push_back({ViolationKind::torch_unstable, demangled, ""});
    }
  }
  std::sort(out.begin(), out.end(), [](const Violation& a, const Violation& b) {
    return std::tie(a.kind, a.symbol, a.detail) < std::tie(b.kind, b.symbol, b.detail);
  });
  return out;
}

Result<FileReport> check_file(const fs::path& path, const CheckOptions& options) {
  KB_TRY_ASSIGN(auto binary, read_binary(path));
  FileReport report;
  report.path = path;
  report.format_name = binary.format_name;
  if (binary.format == Format::other) {
    report.skipped = true;
    return report;
  }
  KB_TRY_ASSIGN(auto violations, check_binary(binary, options));
  report.violations = std::move(violations);
  bool symbol_versions = std::any_of(report.violations.begin(), report.violations.end(),
                                     [](const Violation& v) { return v.kind == ViolationKind::manylinux; });
  if (symbol_versions) {
    report.oldest_policy = "";
    for (const auto& name : manylinux_policies()) {
      auto policy = load_policy(name, binary.architecture);
      if (policy && symbol_violations(binary, *policy).empty()) {
        report.oldest_policy = name;
        break;
      }
    }
  }
  return report;
}

std::vector<fs::path> native_files(const fs::path& variant_dir) {
  std::vector<fs::path> out;
  for (const auto& relative : util::list_files_recursive(variant_dir)) {
    fs::path path = variant_dir / relative;
    std::error_code ec;
    if (fs::is_symlink(path, ec)) continue;
    if (path.extension() == ".so" || path.extension() == ".pyd") out.push_back(std::move(path));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string render_file_report(const FileReport& report, const CheckOptions& options) {
  const std::string py = normalise_version(options.python_abi);
  if (report.skipped) {
    return "⚠️  Skipping unsupported file format (" + report.format_name + "): " + report.path.string() + "\n";
  }
  std::string out;
  if (report.format_name == "ELF") {
    out += "🐍 Checking for compatibility with " + options.manylinux + " and Python ABI version " + py + ": " +
           report.path.string() + "\n";
  } else {
    out += "🐍 Checking for compatibility with macOS " + normalise_version(options.macos) +
           ", and Python ABI version " + py + ": " + report.path.string() + "\n";
  }
  auto section = [&](ViolationKind kind, const std::string& heading, auto line) {
    std::vector<std::string> lines;
    for (const auto& v : report.violations) {
      if (v.kind == kind) lines.push_back(line(v));
    }
    if (lines.empty()) return;
    out += "\n" + heading + "\n\n";
    for (const auto& l : lines) out += l + "\n";
  };
  section(ViolationKind::manylinux, "⛔ Symbols incompatible with `" + options.manylinux + "` found:", describe);
  if (report.oldest_policy) {
    out += report.oldest_policy->empty() ? "(no manylinux policy allows these symbol versions)\n"
                                         : "(the oldest policy this file meets: " + *report.oldest_policy + ")\n";
  }
  section(ViolationKind::library, "⛔ Libraries that `" + options.manylinux + "` systems lack found:", describe);
  section(ViolationKind::run_path, "⛔ Run paths into the build machine found:", describe);
  for (const auto& v : report.violations) {
    if (v.kind == ViolationKind::macos_missing) out += "\n⛔ shared library does not contain minimum macOS version\n";
    if (v.kind == ViolationKind::macos_newer) {
      out += "\n⛔ shared library requires macOS version " + v.symbol + ", which is newer than " +
             normalise_version(options.macos) + "\n";
    }
  }
  section(ViolationKind::python_newer, "⛔ Symbols >= Python ABI " + py + " found:",
          [](const Violation& v) { return v.symbol + ": " + v.detail; });
  section(ViolationKind::python_not_abi3, "⛔ Non-ABI3 symbols found:", [](const Violation& v) { return v.symbol; });
  if (options.torch_stable_abi) {
    std::string torch = normalise_version(*options.torch_stable_abi);
    out += "🔥 Checking for compatibility with Torch stable ABI version " + torch + "\n";
    section(ViolationKind::torch_unstable,
            "⛔ Non-stable Torch ABI symbols found (incompatible with Torch stable ABI " + torch + "):",
            [](const Violation& v) { return v.detail.empty() ? v.symbol : v.symbol + ": " + v.detail; });
  }
  if (report.ok()) out += "✅ No compatibility issues found\n";
  return out;
}

}  // namespace kb::abi
