// Binding of kernel dependencies at load time: resolve, install and verify every kernel a
// variant's `kernel-depends` names (transitively), dependencies first, before it is imported.
#include <pybind11/stl.h>

#include "common.h"
#include "loader/cache_layout.h"
#include "loader/kernel_dependencies.h"
#include "util/fs.h"

namespace kb::loader::python {
namespace {

// dict(kernels=[(repo_id, commit, variant_path, chain)], warnings=[...]).
py::dict resolve_dependencies(const std::string& root, const std::string& metadata_path, bool local_files_only,
                              const py::dict& system, const std::string& detected_backend,
                              const std::string& user_agent, const py::object& probe, const std::string& lockfile,
                              const std::string& cache_root) {
  auto root_metadata = unwrap(metadata::read_metadata_file(metadata_path));
  py::dict out;
  out["kernels"] = py::list();
  out["warnings"] = py::list();
  if (root_metadata.kernel_depends.empty()) return out;  // no Hub client for the common case

  DependencyInstallOptions options;
  options.system = system_from_dict(system);
  options.local_files_only = local_files_only;
  options.validate_dependencies = python_dependency_check(detected_backend, probe);
  if (!lockfile.empty()) options.locks = unwrap(parse_lockfile(lockfile));
  std::unique_ptr<HubReader> reader = local_files_only ? nullptr : hub(user_agent);
  util::Result<DependencyResolution> resolution = util::Error("not run");
  {
    py::gil_scoped_release release;
    Installer installer(cache_root.empty() ? default_cache_root() : std::filesystem::path(cache_root), reader.get());
    resolution = resolve_kernel_dependencies(root, root_metadata, [&](const metadata::KernelDependency& dependency) {
      return install_dependency(installer, options, dependency);
    });
  }
  auto value = unwrap(std::move(resolution));
  py::list kernels;
  for (const auto& k : value.kernels) {
    kernels.append(py::make_tuple(k.repo_id, k.commit, k.variant_path.string(), k.chain));
  }
  out["kernels"] = kernels;
  out["warnings"] = value.user_warnings;
  return out;
}

}  // namespace

void bind_dependencies(py::module_& m) {
  m.def("resolve_dependencies", &resolve_dependencies, py::arg("root"), py::arg("metadata_path"),
        py::arg("local_files_only"), py::arg("system"), py::arg("detected_backend"), py::arg("user_agent"),
        py::arg("probe"), py::arg("lockfile") = "", py::arg("cache_root") = "");
}

}  // namespace kb::loader::python
