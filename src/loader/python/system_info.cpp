// SystemInfo from the facade's dict, and the util::Error → Python exception mapping:
// usage/config/permission → ValueError, not_found → FileNotFoundError, integrity →
// kernels._core.IntegrityError (an OSError), io/network → OSError, the rest → RuntimeError.
#include "common.h"

#include <string>

#include "util/strings.h"

namespace kb::loader::python {

std::string error_text(const util::Error& error) {
  std::string text = error.message;
  for (const auto& cause : error.causes) text += "\nCaused by: " + cause;
  for (const auto& hint : error.hints) text += "\nhint: " + hint;
  return text;
}

void raise(const util::Error& error) {
  std::string text = error_text(error);
  switch (error.kind) {
    case util::ErrorKind::usage:
    case util::ErrorKind::config:
    case util::ErrorKind::permission:
    case util::ErrorKind::invalid:
      throw py::value_error(text);
    case util::ErrorKind::not_found: {
      // A Hub's RepoNotFound / RevisionNotFound become huggingface_hub's classes, as upstream
      // raises them; kernels._errors owns that mapping.
      if (!error.code.empty()) {
        py::object exception = py::module_::import("kernels._errors").attr("hub_not_found")(error.code, text, error.status);
        if (!exception.is_none()) {
          PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exception.ptr())), exception.ptr());
          throw py::error_already_set();
        }
      }
      PyErr_SetString(PyExc_FileNotFoundError, text.c_str());
      throw py::error_already_set();
    }
    case util::ErrorKind::integrity: {
      auto cls = py::module_::import("kernels._core").attr("IntegrityError");
      PyErr_SetString(cls.ptr(), text.c_str());
      throw py::error_already_set();
    }
    case util::ErrorKind::io:
    case util::ErrorKind::network:
      PyErr_SetString(PyExc_OSError, text.c_str());
      throw py::error_already_set();
    default:
      throw std::runtime_error(text);
  }
}

SystemInfo system_from_dict(const py::dict& d) {
  SystemInfo s;
  auto str = [&](const char* key, std::string& out) {
    if (d.contains(key) && !d[key].is_none()) out = py::str(d[key]);
  };
  str("backend", s.backend);
  str("backend_version", s.backend_version);
  str("cpu", s.cpu);
  str("os", s.os);
  str("torch_version", s.torch_version);
  str("tvm_ffi_version", s.tvm_ffi_version);
  str("macos_version", s.macos_version);
  if (d.contains("cxx11") && !d["cxx11"].is_none()) s.cxx11 = d["cxx11"].cast<bool>();
  if (d.contains("free_threaded")) s.free_threaded = d["free_threaded"].cast<bool>();
  str("detected_backend", s.detected_backend);
  str("detected_backend_version", s.detected_backend_version);
  if (d.contains("backend_explicit")) s.backend_explicit = d["backend_explicit"].cast<bool>();
  if (d.contains("device_available")) s.device_available = d["device_available"].cast<bool>();
  str("device_arch", s.device_arch);
  str("kernels_version", s.kernels_version);
  return s;
}

}  // namespace kb::loader::python
