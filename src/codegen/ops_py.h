// Generated Python glue of a variant (docs/build-output.md): `_ops.py` in its three
// flavours and the `registration.h` header of Torch bindings. Each renders an embedded template
// of templates/project/; an error is an internal one (a template that does not render).
#pragma once

#include <string>

#include "util/result.h"

namespace kb::codegen {

// imports the native module `<ops id>` relatively and exposes `torch.ops.<ops id>`.
util::Result<std::string> render_ops_py_torch(const std::string& ops_id);
// the namespace `_<python name>_<backend>_<unique id>` with the backend detected at import.
util::Result<std::string> render_ops_py_noarch(const std::string& python_name, const std::string& unique_id);
// loads `<library_name>` (e.g. `<ops id>.so`) next to it through tvm_ffi.
util::Result<std::string> render_ops_py_tvm_ffi(const std::string& ops_id, const std::string& library_name);
// the registration header the builder writes (as kRegistrationHeader) into every Torch
// variant's project directory, and `create-pyproject` into torch-ext/.
inline constexpr const char* kRegistrationHeader = "registration.h";
util::Result<std::string> render_registration_h();

// `_<python name>_<backend>_<unique id>` (docs/build-output.md).
std::string make_ops_id(const std::string& python_name, const std::string& backend, const std::string& unique_id);

}  // namespace kb::codegen
