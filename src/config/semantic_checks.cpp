// Cross-section checks of build.toml (see semantic_checks.h).
#include "config/semantic_checks.h"

#include <algorithm>
#include <initializer_list>
#include <regex>

#include "config/python_registry.h"
#include "util/strings.h"

namespace kb::config::detail {

namespace {

// The node at a key path, or nullptr; used only to locate diagnostics.
const toml::node* find(const toml::table& root, std::initializer_list<std::string_view> path) {
  const toml::node* node = &root;
  for (std::string_view key : path) {
    const auto* table = node->as_table();
    if (table == nullptr) return nullptr;
    node = table->get(key);
    if (node == nullptr) return nullptr;
  }
  return node;
}

toml::source_region where(const toml::table& root, std::initializer_list<std::string_view> path) {
  const toml::node* node = find(root, path);
  return node != nullptr ? node->source() : toml::source_region{};
}

// The array element of `path` equal to `text` (for pointing at one list entry).
toml::source_region element(const toml::table& root, std::initializer_list<std::string_view> path,
                            std::string_view text) {
  const toml::node* node = find(root, path);
  if (node == nullptr) return {};
  if (const auto* array = node->as_array()) {
    for (const auto& item : *array) {
      if (const auto* value = item.as_string(); value != nullptr && value->get() == text) return item.source();
    }
  }
  return node->source();
}

void check_python_depends(const BuildConfig& config, const toml::table& root, DiagnosticSink& sink, bool warn) {
  const PythonRegistry& registry = PythonRegistry::embedded();
  for (const auto& name : config.general.python_depends) {
    if (registry.find_general(name) != nullptr) continue;
    std::vector<std::string> hints{"known names: " + util::join(registry.general_names(), ", ")};
    sink.error(element(root, {"general", "python-depends"}, name), "Unknown dependency: `" + name + "`", hints);
  }
  for (Backend backend : {Backend::cuda, Backend::neuron, Backend::tpu, Backend::xpu}) {
    const auto* section = general_backend_config(config.general, backend);
    if (section == nullptr || !section->has_value()) continue;
    std::string b(to_string(backend));
    if (!config.has_backend(backend)) {
      if (!warn) continue;
      sink.warning(where(root, {"general", b}),
                   "[general." + b + "] is ignored: `" + b + "` is not in `general.backends`");
      continue;
    }
    const auto& names = (*section)->python_depends;
    if (names.empty()) continue;
    if (!registry.has_backend_table(backend)) {
      sink.error(where(root, {"general", b, "python-depends"}), "No dependencies are defined for backend: " + b);
      continue;
    }
    for (const auto& name : names) {
      if (registry.find_backend(backend, name) != nullptr) continue;
      std::vector<std::string> known = registry.backend_names(backend);
      std::vector<std::string> hints;
      hints.push_back(known.empty() ? "the registry has no dependencies for `" + b + "`"
                                    : "known names for `" + b + "`: " + util::join(known, ", "));
      sink.error(element(root, {"general", b, "python-depends"}, name),
                 "Unknown dependency `" + name + "` for backend `" + b + "`", hints);
    }
  }
}

void check_range(const std::optional<Version>& min, const std::optional<Version>& max, const std::string& prefix,
                 const toml::source_region& region, DiagnosticSink& sink) {
  if (min && max && *max < *min) {
    sink.warning(region, "`" + prefix + ".minver` (" + min->to_string() + ") is greater than `" + prefix +
                              ".maxver` (" + max->to_string() + "); no version satisfies both");
  }
}

bool looks_like_capability(const std::string& capability) {
  static const std::regex pattern(R"(^[0-9]+\.[0-9]+[af]?(\+PTX)?$)");
  return std::regex_match(capability, pattern);
}

// The kernel backend a build dependency belongs to, if it is backend-specific.
std::optional<Backend> dependency_backend(const std::string& name) {
  if (util::starts_with(name, "cutlass_")) return Backend::cuda;
  if (name == "sycl_tla") return Backend::xpu;
  if (name == "metal-cpp") return Backend::metal;
  return std::nullopt;
}

void check_kernels(const BuildConfig& config, const toml::table& root, DiagnosticSink& sink) {
  static const std::regex unit_name(R"(^[A-Za-z0-9_]+$)");
  for (const auto& unit : config.kernels) {
    std::string b(to_string(unit.backend));
    const toml::node* table = find(root, {"kernel", unit.name});
    toml::source_region header = table != nullptr ? table->source() : toml::source_region{};
    if (config.is_torch_noarch()) {
      sink.warning(header, "[kernel." + toml_key(unit.name) +
                               "] is ignored: [torch-noarch] projects have no compiled kernel units");
      continue;
    }
    if (!config.has_backend(unit.backend)) {
      sink.warning(where(root, {"kernel", unit.name, "backend"}),
                   "[kernel." + toml_key(unit.name) + "] is ignored: backend `" + b + "` is not in `general.backends`");
    }
    if (!std::regex_match(unit.name, unit_name)) {
      sink.warning(header, "kernel name `" + unit.name +
                               "` should match [A-Za-z0-9_]+ (it becomes part of CMake variable names)");
    }
    for (const auto& dependency : unit.depends) {
      auto only = dependency_backend(dependency);
      if (!only || *only == unit.backend) continue;
      sink.warning(element(root, {"kernel", unit.name, "depends"}, dependency),
                   "build dependency `" + dependency + "` is only used by `" + std::string(to_string(*only)) +
                       "` kernels; it is ignored for backend `" + b + "`");
    }
    for (const auto& capability : unit.cuda_capabilities.value_or(std::vector<std::string>{})) {
      if (looks_like_capability(capability)) continue;
      sink.warning(element(root, {"kernel", unit.name, "cuda-capabilities"}, capability),
                   "`" + capability + "` is not a CUDA capability like `8.0`, `9.0a`, `10.0f` or `8.0+PTX`");
    }
    for (const auto& arch : unit.rocm_archs.value_or(std::vector<std::string>{})) {
      if (util::starts_with(arch, "gfx")) continue;
      sink.warning(element(root, {"kernel", unit.name, "rocm-archs"}, arch),
                   "`" + arch + "` is not a ROCm architecture like `gfx942`");
    }
  }
}

void check_framework(const BuildConfig& config, const toml::table& root, DiagnosticSink& sink) {
  if (const auto* torch = std::get_if<TorchConfig>(&config.framework)) {
    check_range(torch->minver, torch->maxver, "torch", where(root, {"torch", "maxver"}), sink);
    if (torch->stable_abi) {
      for (const auto& [backend, version] : torch->stable_abi->per_backend) {
        if (config.has_backend(backend)) continue;
        std::string b(to_string(backend));
        sink.warning(where(root, {"torch", "stable-abi", b}),
                     "`torch.stable-abi." + b + "` is ignored: `" + b + "` is not in `general.backends`");
      }
    }
  }
  if (config.is_tvm_ffi()) {
    for (Backend backend : config.general.backends) {
      if (!config.units_for(backend).empty()) continue;
      std::string b(to_string(backend));
      sink.warning(element(root, {"general", "backends"}, b),
                   "backend `" + b + "` has no [kernel.*] unit; skipped (tvm-ffi kernels cannot be noarch)");
    }
  }
}

}  // namespace

void check_semantics(const BuildConfig& config, const toml::table& root, DiagnosticSink& sink, bool schema_valid) {
  if (!schema_valid) {
    check_python_depends(config, root, sink, /*warn=*/false);
    return;
  }
  const General& general = config.general;
  if (general.backends.empty()) {
    sink.warning(where(root, {"general", "backends"}), "`general.backends` is empty; nothing will be built");
  }
  if (general.hub && general.hub->repo_id) {
    auto parts = util::split(*general.hub->repo_id, '/');
    if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
      sink.warning(where(root, {"general", "hub", "repo-id"}),
                   "`general.hub.repo-id` `" + *general.hub->repo_id + "` is not of the form `<org>/<name>`");
    }
  }
  if (general.cuda) {
    check_range(general.cuda->minver, general.cuda->maxver, "general.cuda", where(root, {"general", "cuda", "maxver"}),
                sink);
  }
  check_python_depends(config, root, sink, /*warn=*/true);
  check_framework(config, root, sink);
  check_kernels(config, root, sink);
  if (const auto* noarch = std::get_if<TorchNoarchConfig>(&config.framework)) {
    for (const auto& capability : noarch->cuda_capabilities.value_or(std::vector<std::string>{})) {
      if (looks_like_capability(capability)) continue;
      const char* key = find(root, {"torch-noarch", "cuda_capabilities"}) != nullptr ? "cuda_capabilities" : "cuda-capabilities";
      sink.warning(element(root, {"torch-noarch", key}, capability),
                   "`" + capability + "` in [torch-noarch] is not a CUDA capability like `8.0`");
    }
  }
}

}  // namespace kb::config::detail
