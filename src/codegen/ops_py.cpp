// `_ops.py` flavours and registration.h, rendered from embedded templates (see ops_py.h).
#include "codegen/ops_py.h"

#include "codegen/generated_files.h"

namespace kb::codegen {

util::Result<std::string> render_ops_py_torch(const std::string& ops_id) {
  return render_project_template("ops_torch.py.in", templating::string_context({{"ops_id", ops_id}}));
}

util::Result<std::string> render_ops_py_noarch(const std::string& python_name, const std::string& unique_id) {
  return render_project_template("ops_noarch.py.in",
                                 templating::string_context({{"python_name", python_name}, {"unique_id", unique_id}}));
}

util::Result<std::string> render_ops_py_tvm_ffi(const std::string& ops_id, const std::string& library_name) {
  return render_project_template("ops_tvm_ffi.py.in",
                                 templating::string_context({{"ops_id", ops_id}, {"library_name", library_name}}));
}

util::Result<std::string> render_registration_h() { return render_project_template("registration.h"); }

std::string make_ops_id(const std::string& python_name, const std::string& backend, const std::string& unique_id) {
  return "_" + python_name + "_" + backend + "_" + unique_id;
}

}  // namespace kb::codegen
