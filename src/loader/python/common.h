// Shared helpers of the binding files: turning util::Error into the Python exception the spec
// names, and SystemInfo conversion from the dict the facade builds.
#pragma once

#include <pybind11/pybind11.h>

#include <functional>
#include <memory>

#include "loader/hub_reader.h"
#include "loader/selection.h"
#include "metadata/metadata.h"
#include "util/result.h"

namespace kb::loader::python {

namespace py = pybind11;

// The message, `Caused by:` and `hint:` lines of `error`, as the raised exception carries them.
std::string error_text(const util::Error& error);

// Raises the Python exception for `error` (never returns).
[[noreturn]] void raise(const util::Error& error);

template <class T>
T unwrap(util::Result<T> result) {
  if (!result) raise(result.error());
  return std::move(result).value();
}
inline void unwrap(util::Status status) {
  if (!status) raise(status.error());
}

// dict(backend=, backend_version=, cpu=, os=, torch_version=, cxx11=, tvm_ffi_version=,
// macos_version=, free_threaded=) → SystemInfo.
SystemInfo system_from_dict(const py::dict& system);

// The Hub reader of the bindings (HF_ENDPOINT, HF_TOKEN) with `user_agent`.
std::unique_ptr<HubReader> hub(const std::string& user_agent);

// Python dependency validation (docs/python-api.md): every module the variant's `python-depends`
// require on `detected_backend` must be found by `probe` (importlib.util.find_spec).
using DependencyCheck = std::function<util::Status(const metadata::Metadata&, const std::string& variant)>;
DependencyCheck python_dependency_check(const std::string& detected_backend, const py::object& probe);

void bind_install(py::module_& m);
void bind_dependencies(py::module_& m);
void bind_metadata(py::module_& m);
void bind_lock(py::module_& m);
void bind_variant(py::module_& m);

}  // namespace kb::loader::python
