// Shared helpers of the binding files: turning util::Error into the Python exception the spec
// names, and SystemInfo conversion from the dict the facade builds.
#pragma once

#include <pybind11/pybind11.h>

#include "loader/selection.h"
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

void bind_install(py::module_& m);
void bind_metadata(py::module_& m);
void bind_lock(py::module_& m);
void bind_variant(py::module_& m);

}  // namespace kb::loader::python
