// The Python-dependency registry (docs/build-toml.md), embedded from data/python_registry.json and
// shared by the config checks, code generation (pyproject.toml, metadata.json) and the loader.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/backend.h"
#include "config/model.h"
#include "util/result.h"

namespace kb::config {

struct PythonPackage {
  std::string pkg;                         // pip distribution name
  std::optional<std::string> import_name;  // module the loader probes; absent: not probed
};

struct PythonDependency {
  std::string name;              // registry key, as written in build.toml
  std::vector<std::string> nix;  // upstream-internal; preserved, otherwise unused
  std::vector<PythonPackage> python;
};

class PythonRegistry {
 public:
  // The registry baked into the binary (parsed once).
  static const PythonRegistry& embedded();
  // Parses registry JSON (the shape of data/python_registry.json).
  static util::Result<PythonRegistry> parse(std::string_view json_text);

  const PythonDependency* find_general(std::string_view name) const;
  // False for backends without a table (`tpu`, `cann`).
  bool has_backend_table(Backend backend) const;
  const PythonDependency* find_backend(Backend backend, std::string_view name) const;

  std::vector<std::string> general_names() const;
  std::vector<std::string> backend_names(Backend backend) const;
  // The registry text exactly as embedded (for re-emission).
  const std::string& json_text() const { return json_text_; }

 private:
  std::map<std::string, PythonDependency, std::less<>> general_;
  std::map<Backend, std::map<std::string, PythonDependency, std::less<>>> backends_;
  std::string json_text_;
};

// Python dependencies of `backend` (docs/build-toml.md): the general names, then those of
// [general.<backend>] for cuda/neuron/tpu/xpu. Errors (exact): `Unknown dependency: `<name>``,
// `Unknown dependency `<name>` for backend `<b>``, `No dependencies are defined for backend: <b>`.
util::Result<std::vector<const PythonDependency*>> resolve_python_depends(const BuildConfig& config, Backend backend,
                                                                          const PythonRegistry& registry);

// Kernel dependencies of `backend`: the general list, then [general.<backend>] for cuda/neuron/xpu.
std::vector<KernelDependency> kernel_depends_for(const BuildConfig& config, Backend backend);

// The [general.<backend>] table of the model, if that backend has one (cuda, neuron, tpu, xpu).
const std::optional<GeneralBackendConfig>* general_backend_config(const General& general, Backend backend);

}  // namespace kb::config
