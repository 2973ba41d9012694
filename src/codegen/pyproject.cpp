// Rendering of the create-pyproject project (see pyproject.h).
#include "codegen/pyproject.h"

#include <set>

#include "codegen/ops_py.h"
#include "codegen/variant_project.h"
#include "config/kernels_minver.h"
#include "config/python_registry.h"
#include "util/strings.h"
#include "variant/cuda_capabilities.h"
#include "variant/rocm_archs.h"

namespace kb::codegen {

using config::Backend;

namespace {

std::string quoted_list(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  for (const auto& item : items) quoted.push_back("\"" + item + "\"");
  return util::join(quoted, ", ");
}

std::vector<std::string> package_globs(const config::BuildConfig& config) {
  std::vector<std::string> out;
  for (const auto& ext : config.data_extensions()) out.push_back("**/*." + ext);
  return out;
}

std::vector<std::string> pip_names(const std::vector<const config::PythonDependency*>& deps) {
  std::vector<std::string> out;
  for (const auto* dep : deps) {
    for (const auto& package : dep->python) out.push_back(package.pkg);
  }
  return out;
}

util::Result<std::vector<std::string>> general_pip_names(const config::BuildConfig& config) {
  const auto& registry = config::PythonRegistry::embedded();
  std::vector<std::string> out;
  for (const auto& name : config.general.python_depends) {
    const auto* dep = registry.find_general(name);
    if (!dep) return util::Error(util::ErrorKind::config, "Unknown dependency: `" + name + "`");
    for (const auto& package : dep->python) out.push_back(package.pkg);
  }
  return out;
}

// The pip name of TVM-FFI, from the python-depends registry's `tvm-ffi` entry (one owner).
std::string tvm_ffi_pip_name() {
  const auto* dep = config::PythonRegistry::embedded().find_general("tvm-ffi");
  return dep && !dep->python.empty() ? dep->python.front().pkg : "tvm-ffi";
}

// `[project.optional-dependencies]` lines: backend-specific pip names per listed backend.
util::Result<std::string> optional_dependencies(const config::BuildConfig& config) {
  KB_TRY_ASSIGN(auto general, general_pip_names(config));
  std::string out;
  for (Backend backend : config::all_backends) {
    if (!config.has_backend(backend)) continue;
    KB_TRY_ASSIGN(auto deps, config::resolve_python_depends(config, backend, config::PythonRegistry::embedded()));
    auto names = pip_names(deps);
    std::vector<std::string> specific(names.begin() + static_cast<long>(std::min(names.size(), general.size())), names.end());
    out += std::string(config::to_string(backend)) + " = [" + quoted_list(specific) + "]\n";
  }
  return out;
}

// The names of the project's backends ([general] backends), in its order.
std::vector<std::string> backend_names(const config::BuildConfig& config) {
  std::vector<std::string> names;
  for (Backend backend : config.general.backends) names.push_back(std::string(config::to_string(backend)));
  return names;
}

util::Result<std::string> backend_block(const PyprojectInput& input, Backend backend) {
  VariantProjectInput v;
  v.config = input.config;
  v.backend = backend;
  v.ops_id = "${OPS_NAME}";
  if (const auto* torch = std::get_if<config::TorchConfig>(&input.config->framework)) v.stable_abi = torch->stable_abi_for(backend);
  std::string out = "if(KB_BACKEND STREQUAL \"" + std::string(config::to_string(backend)) + "\")\n";
  std::vector<std::string> definitions = backend_definitions(v);
  std::string joined;
  for (const auto& d : definitions) joined += " \"" + d + "\"";
  out += "  target_compile_definitions(${OPS_NAME} PRIVATE" + joined + ")\n";
  auto indent = [](const std::string& text) {
    std::string result;
    for (const auto& line : util::split(text, '\n')) result += line.empty() ? "\n" : "  " + line + "\n";
    return result;
  };
  if (backend != Backend::cuda) {
    if (backend == Backend::rocm) {
      for (const auto* unit : input.config->units_for(backend)) {
        KB_TRY_ASSIGN(auto archs, variant::unit_rocm_archs(unit->name, unit->rocm_archs));
        v.unit_archs[unit->name] = archs;
      }
    }
    out += indent(render_backend_setup(v));
    KB_TRY_ASSIGN(auto sources, render_sources(v));
    out += indent(sources);
  } else {
    // Capabilities depend on the nvcc found at configure time (docs/variants.md): one block per
    // default-list range.
    out += indent(render_backend_setup(v));
    const std::vector<std::pair<std::string, config::Version>> ranges = {
        {"13.0", config::Version({13, 0})}, {"12.8", config::Version({12, 8})}, {"", config::Version({12, 6})}};
    bool first = true;
    for (const auto& [minimum, nvcc] : ranges) {
      out += minimum.empty() ? "  else()\n"
                             : std::string(first ? "  if" : "  elseif") + "(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL " + minimum + ")\n";
      first = false;
      v.cuda = variant::MajorMinor{nvcc.major(), nvcc.minor()};
      v.unit_archs.clear();
      for (const auto* unit : input.config->units_for(backend)) {
        if (unit->cuda_minver && nvcc < *unit->cuda_minver) continue;
        KB_TRY_ASSIGN(auto archs, variant::unit_cuda_capabilities(unit->name, unit->cuda_capabilities, nvcc));
        v.unit_archs[unit->name] = archs;
      }
      KB_TRY_ASSIGN(auto sources, render_sources(v));
      out += indent(indent(sources));
    }
    out += "  endif()\n";
  }
  return out + "endif()\n";
}

// The backend blocks of every arch backend (CMake `if(KB_BACKEND STREQUAL ...)`).
util::Result<std::string> backend_blocks(const PyprojectInput& input) {
  std::string blocks;
  for (Backend backend : config::all_backends) {
    if (!input.config->is_arch_backend(backend)) continue;
    KB_TRY_ASSIGN(auto block, backend_block(input, backend));
    blocks += block;
  }
  return blocks;
}

// setup.py and pyproject.toml of an arch project; `framework` is the pip name of torch or tvm-ffi.
util::Result<GeneratedFiles> add_setup_files(const config::BuildConfig& config, const std::string& framework,
                                             const std::string& what, const std::string& ext_dir, GeneratedFiles files) {
  std::string python_name = config.general.python_name();
  KB_TRY(add_project_template(files, "setup.py", "pyproject/setup.py.in",
                              templating::string_context({{"python_name", python_name},
                                                          {"what", what},
                                                          {"framework_package", framework},
                                                          {"ext_dir", ext_dir},
                                                          {"package_data", quoted_list(package_globs(config))}})));
  KB_TRY_ASSIGN(auto general, general_pip_names(config));
  std::vector<std::string> requires_list = {"cmake>=3.26", "ninja", "packaging", "setuptools>=61", framework, "wheel"};
  requires_list.insert(requires_list.end(), general.begin(), general.end());
  KB_TRY_ASSIGN(auto optional, optional_dependencies(config));
  KB_TRY(add_project_template(files, "pyproject.toml", "pyproject/pyproject.toml.in",
                              templating::string_context({{"python_name", python_name},
                                                          {"build_requires", quoted_list(requires_list)},
                                                          {"optional_dependencies", optional}})));
  return files;
}

// docs/build-output.md "TVM-FFI projects": as a Torch arch project, but sources from tvm-ffi-ext/,
// a plain shared library linked to tvm_ffi (found with `python -m tvm_ffi.config --cmakedir`), the
// TVM-FFI _ops.py, no registration.h, and `apache-tvm-ffi` instead of torch as build requirement.
util::Result<GeneratedFiles> generate_tvm_ffi_project(const PyprojectInput& input, GeneratedFiles files) {
  const auto& config = *input.config;
  std::string python_name = config.general.python_name();
  KB_TRY_ASSIGN(auto blocks, backend_blocks(input));
  std::string includes = render_module_include_dirs(config, " ");
  KB_TRY(add_project_template(
      files, "CMakeLists.txt", "pyproject/CMakeLists_tvm_ffi.txt.in",
      templating::string_context({{"name", config.general.name},
                                  {"python_name", python_name},
                                  {"project_dir", input.project_dir},
                                  {"unique_id", input.unique_id},
                                  {"includes", includes},
                                  {"backend_blocks", blocks},
                                  {"data_extensions", util::join(config.data_extensions(), ";")}})));
  KB_TRY(add_project_template(files, "cmake/kernel_utils.cmake", "pyproject/cmake/kernel_utils.cmake"));
  // The project's CMake fills this one in (configure_file with @ONLY), once it knows the ops id.
  KB_TRY(
      add_project_template(files, "cmake/_ops.py.in", "ops_tvm_ffi.py.in",
                           templating::string_context({{"ops_id", "@OPS_ID@"}, {"library_name", "@LIBRARY_NAME@"}})));
  return add_setup_files(config, tvm_ffi_pip_name(), "TVM-FFI library", "tvm-ffi-ext", std::move(files));
}

util::Result<GeneratedFiles> generate_torch_project(const PyprojectInput& input, GeneratedFiles files) {
  const auto& config = *input.config;
  const auto& torch = std::get<config::TorchConfig>(config.framework);
  std::string python_name = config.general.python_name();
  std::string bounds;
  if (torch.minver) {
    bounds += "if(KB_TORCH_VERSION VERSION_LESS " + torch.minver->to_string() + ")\n  message(FATAL_ERROR \"torch " +
              "${KB_TORCH_VERSION} is older than [torch] minver " + torch.minver->to_string() + "\")\nendif()\n";
  }
  if (torch.maxver) {
    bounds += "if(KB_TORCH_VERSION VERSION_GREATER " + torch.maxver->to_string() + ".999)\n  message(FATAL_ERROR \"torch " +
              "${KB_TORCH_VERSION} is newer than [torch] maxver " + torch.maxver->to_string() + "\")\nendif()\n";
  }
  KB_TRY_ASSIGN(auto blocks, backend_blocks(input));
  KB_TRY(add_project_template(
      files, "CMakeLists.txt", "pyproject/CMakeLists.txt.in",
      templating::string_context({{"name", config.general.name},
                                  {"python_name", python_name},
                                  {"project_dir", input.project_dir},
                                  {"unique_id", input.unique_id},
                                  {"torch_bounds", bounds},
                                  {"backends", util::join(backend_names(config), ";")},
                                  {"includes", render_module_include_dirs(config, "\n  ")},
                                  {"backend_blocks", blocks},
                                  {"data_extensions", util::join(config.data_extensions(), ";")}})));
  KB_TRY(add_project_template(files, "cmake/kernel_utils.cmake", "pyproject/cmake/kernel_utils.cmake"));
  KB_TRY(add_project_template(files, "cmake/_ops.py.in", "pyproject/cmake/_ops.py.in"));
  KB_TRY(add_project_template(files, "torch-ext/registration.h", "registration.h"));
  return add_setup_files(config, "torch", "Torch extension", "torch-ext", std::move(files));
}

util::Result<GeneratedFiles> generate_noarch_project(const PyprojectInput& input, GeneratedFiles files) {
  const auto& config = *input.config;
  std::string python_name = config.general.python_name();
  KB_TRY_ASSIGN(auto ops_py, render_ops_py_noarch(python_name, input.unique_id));
  files["torch-ext/" + python_name + "/_ops.py"] = std::move(ops_py);
  KB_TRY(add_project_template(files, "setup.py", "pyproject/setup_noarch.py.in",
                              templating::string_context({{"name", config.general.name},
                                                          {"python_name", python_name},
                                                          {"backends", quoted_list(backend_names(config))},
                                                          {"package_data", quoted_list(package_globs(config))}})));
  KB_TRY_ASSIGN(auto general, general_pip_names(config));
  std::vector<std::string> dependencies = {"torch>=2.8"};
  dependencies.insert(dependencies.end(), general.begin(), general.end());
  KB_TRY_ASSIGN(auto optional, optional_dependencies(config));
  KB_TRY(add_project_template(files, "pyproject.toml", "pyproject/pyproject_noarch.toml.in",
                              templating::string_context({{"name", config.general.name},
                                                          {"python_name", python_name},
                                                          {"dependencies", quoted_list(dependencies)},
                                                          {"optional_dependencies", optional},
                                                          {"package_data", quoted_list(package_globs(config))}})));
  return files;
}

}  // namespace

util::Result<std::string> render_backend_metadata(const PyprojectInput& input, Backend backend) {
  const auto& config = *input.config;
  metadata::Metadata m;
  m.name = config.general.name;
  m.id = make_ops_id(config.general.python_name(), std::string(config::to_string(backend)), input.unique_id);
  m.version = config.general.version;
  m.license = config.general.license;
  if (config.general.upstream) m.upstream = config.general.upstream->original;
  if (config.general.source) m.source = config.general.source->original;
  auto deps = config::resolve_python_depends(config, backend, config::PythonRegistry::embedded());
  if (deps) {
    for (const auto* dep : *deps) m.python_depends.push_back(dep->name);
  } else if (config.has_backend(backend)) {
    return std::move(deps).error();
  } else {
    m.python_depends = config.general.python_depends;  // unlisted backend: general names only
  }
  for (const auto& dep : config::kernel_depends_for(config, backend)) {
    m.kernel_depends.push_back({dep.repo_id, dep.version, dep.revision});
  }
  m.backend = backend;
  m.provenance = input.provenance;
  if (auto minver = config::required_kernels_version(config, backend)) {
    m.kernels_minver = config::kernels_version_text(*minver);
  }
  return metadata::render_metadata(m);
}

util::Result<GeneratedFiles> generate_pyproject(const PyprojectInput& input) {
  const auto& config = *input.config;
  GeneratedFiles files;
  for (Backend backend : config::all_backends) {
    KB_TRY_ASSIGN(auto text, render_backend_metadata(input, backend));
    files["metadata-" + std::string(config::to_string(backend)) + ".json"] = text;
  }
  if (config.is_torch_noarch()) return generate_noarch_project(input, std::move(files));
  if (config.is_tvm_ffi()) return generate_tvm_ffi_project(input, std::move(files));
  return generate_torch_project(input, std::move(files));
}

std::vector<std::string> pyproject_artifacts(const config::BuildConfig& config) {
  std::string ext_dir = config.is_tvm_ffi() ? "tvm-ffi-ext/" : "torch-ext/";
  std::set<std::string> out = {"pyproject.toml", "setup.py", ext_dir + config.general.python_name() + "/_ops.py"};
  for (Backend backend : config::all_backends) out.insert("metadata-" + std::string(config::to_string(backend)) + ".json");
  if (!config.is_torch_noarch()) out.insert({"CMakeLists.txt", "cmake/kernel_utils.cmake", "cmake/_ops.py.in"});
  if (config.is_torch()) out.insert("torch-ext/registration.h");
  return {out.begin(), out.end()};
}

}  // namespace kb::codegen
