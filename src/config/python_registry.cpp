// Embedded Python-dependency registry and per-backend dependency resolution (see
// python_registry.h).
#include "config/python_registry.h"

#include <cstdlib>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "util/embedded.h"

namespace kb::config::data {
const std::vector<kb::util::EmbeddedFile>& embedded_files();
}  // namespace kb::config::data

namespace kb::config {

namespace {

util::Result<PythonDependency> parse_dependency(const std::string& name, const nlohmann::json& value) {
  if (!value.is_object()) return util::Error(util::ErrorKind::config, "registry entry `" + name + "` is not an object");
  PythonDependency dependency;
  dependency.name = name;
  if (auto nix = value.find("nix"); nix != value.end() && nix->is_array()) {
    for (const auto& item : *nix) {
      if (item.is_string()) dependency.nix.push_back(item.get<std::string>());
    }
  }
  if (auto python = value.find("python"); python != value.end() && python->is_array()) {
    for (const auto& item : *python) {
      if (!item.is_object() || !item.contains("pkg") || !item["pkg"].is_string()) {
        return util::Error(util::ErrorKind::config, "registry entry `" + name + "` has a package without `pkg`");
      }
      PythonPackage package{item["pkg"].get<std::string>(), std::nullopt};
      if (item.contains("import") && item["import"].is_string()) package.import_name = item["import"].get<std::string>();
      dependency.python.push_back(std::move(package));
    }
  }
  return dependency;
}

util::Result<std::map<std::string, PythonDependency, std::less<>>> parse_table(const nlohmann::json& table) {
  std::map<std::string, PythonDependency, std::less<>> out;
  if (!table.is_object()) return util::Error(util::ErrorKind::config, "registry table is not an object");
  for (const auto& [name, value] : table.items()) {
    KB_TRY_ASSIGN(auto dependency, parse_dependency(name, value));
    out.emplace(name, std::move(dependency));
  }
  return out;
}

std::vector<std::string> names_of(const std::map<std::string, PythonDependency, std::less<>>& table) {
  std::vector<std::string> out;
  for (const auto& entry : table) out.push_back(entry.first);
  return out;
}

}  // namespace

util::Result<PythonRegistry> PythonRegistry::parse(std::string_view json_text) {
  nlohmann::json document = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded() || !document.is_object()) {
    return util::Error(util::ErrorKind::config, "Python dependency registry is not valid JSON");
  }
  PythonRegistry registry;
  registry.json_text_ = std::string(json_text);
  if (document.contains("general")) {
    KB_TRY_ASSIGN(auto general, parse_table(document["general"]));
    registry.general_ = std::move(general);
  }
  if (document.contains("backends") && document["backends"].is_object()) {
    for (const auto& [name, table] : document["backends"].items()) {
      auto backend = parse_backend(name);
      if (!backend) continue;
      KB_TRY_ASSIGN(auto entries, parse_table(table));
      registry.backends_[*backend] = std::move(entries);
    }
  }
  return registry;
}

const PythonRegistry& PythonRegistry::embedded() {
  static const PythonRegistry registry = [] {
    if (auto text = util::find_embedded(data::embedded_files(), "python_registry.json")) {
      auto parsed = parse(*text);
      if (parsed) return std::move(parsed).value();
    }
    // The registry is compiled in; failing here means the build itself is broken.
    std::fputs("internal error: embedded Python dependency registry is missing or invalid\n", stderr);
    std::abort();
  }();
  return registry;
}

const PythonDependency* PythonRegistry::find_general(std::string_view name) const {
  auto it = general_.find(name);
  return it == general_.end() ? nullptr : &it->second;
}

bool PythonRegistry::has_backend_table(Backend backend) const { return backends_.count(backend) > 0; }

const PythonDependency* PythonRegistry::find_backend(Backend backend, std::string_view name) const {
  auto table = backends_.find(backend);
  if (table == backends_.end()) return nullptr;
  auto it = table->second.find(name);
  return it == table->second.end() ? nullptr : &it->second;
}

std::vector<std::string> PythonRegistry::general_names() const { return names_of(general_); }

std::vector<std::string> PythonRegistry::backend_names(Backend backend) const {
  auto table = backends_.find(backend);
  return table == backends_.end() ? std::vector<std::string>{} : names_of(table->second);
}

const std::optional<GeneralBackendConfig>* general_backend_config(const General& general, Backend backend) {
  switch (backend) {
    case Backend::cuda: return &general.cuda;
    case Backend::neuron: return &general.neuron;
    case Backend::tpu: return &general.tpu;
    case Backend::xpu: return &general.xpu;
    default: return nullptr;
  }
}

util::Result<std::vector<const PythonDependency*>> resolve_python_depends(const BuildConfig& config, Backend backend,
                                                                          const PythonRegistry& registry) {
  std::vector<const PythonDependency*> out;
  for (const auto& name : config.general.python_depends) {
    const PythonDependency* dependency = registry.find_general(name);
    if (dependency == nullptr) return util::Error(util::ErrorKind::config, "Unknown dependency: `" + name + "`");
    out.push_back(dependency);
  }
  const auto* section = general_backend_config(config.general, backend);
  if (section == nullptr || !section->has_value() || (*section)->python_depends.empty()) return out;
  std::string backend_name(to_string(backend));
  if (!registry.has_backend_table(backend)) {
    return util::Error(util::ErrorKind::config, "No dependencies are defined for backend: " + backend_name);
  }
  for (const auto& name : (*section)->python_depends) {
    const PythonDependency* dependency = registry.find_backend(backend, name);
    if (dependency == nullptr) {
      return util::Error(util::ErrorKind::config,
                         "Unknown dependency `" + name + "` for backend `" + backend_name + "`");
    }
    out.push_back(dependency);
  }
  return out;
}

std::vector<KernelDependency> kernel_depends_for(const BuildConfig& config, Backend backend) {
  std::vector<KernelDependency> out = config.general.kernel_depends;
  if (backend == Backend::cuda || backend == Backend::neuron || backend == Backend::xpu) {
    const auto* section = general_backend_config(config.general, backend);
    if (section != nullptr && section->has_value()) {
      out.insert(out.end(), (*section)->kernel_depends.begin(), (*section)->kernel_depends.end());
    }
  }
  return out;
}

}  // namespace kb::config
