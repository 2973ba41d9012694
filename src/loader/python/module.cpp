// `kernels._core`: the C++ loader core behind the `kernels` Python package.
#include "common.h"

PYBIND11_MODULE(_core, m) {
  namespace py = pybind11;
  m.doc() = "C++ core of the kernels loader (selection, metadata, lockfiles, Hub access, cache).";
  // Subclass of OSError for files whose content does not match the digest / lock hash.
  m.attr("IntegrityError") = py::handle(PyErr_NewException("kernels._core.IntegrityError", PyExc_OSError, nullptr));
  kb::loader::python::bind_install(m);
  kb::loader::python::bind_metadata(m);
  kb::loader::python::bind_lock(m);
  kb::loader::python::bind_variant(m);
  kb::loader::python::bind_dependencies(m);
}
