// `_ops.py` flavours and registration.h, rendered from embedded templates (see ops_py.h).
#include "codegen/ops_py.h"

#include "codegen/generated_files.h"

namespace kb::codegen {

std::string render_ops_py_torch(const std::string& ops_id) {
  return substitute(project_template("ops_torch.py.in"), {{"OPS_ID", ops_id}});
}

std::string render_ops_py_noarch(const std::string& python_name, const std::string& unique_id) {
  return substitute(project_template("ops_noarch.py.in"), {{"PYTHON_NAME", python_name}, {"UNIQUE_ID", unique_id}});
}

std::string render_ops_py_tvm_ffi(const std::string& ops_id, const std::string& library_name) {
  return substitute(project_template("ops_tvm_ffi.py.in"), {{"OPS_ID", ops_id}, {"LIBRARY_NAME", library_name}});
}

std::string render_registration_h() { return project_template("registration.h"); }

std::string make_ops_id(const std::string& python_name, const std::string& backend, const std::string& unique_id) {
  return "_" + python_name + "_" + backend + "_" + unique_id;
}

}  // namespace kb::codegen
