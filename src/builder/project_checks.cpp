// Layout check and op-registration lint (see project_checks.h).
#include "builder/project_checks.h"

#include <algorithm>

#include "util/embedded.h"
#include "util/process.h"
#include "util/strings.h"

namespace kb_build_scripts {
const std::vector<kb::util::EmbeddedFile>& embedded_files();
}

namespace kb::builder {

namespace fs = std::filesystem;

std::string build_script(std::string_view name) {
  auto script = util::find_embedded(kb_build_scripts::embedded_files(), name);
  return script ? std::string(*script) : std::string();
}

std::string extension_dir_name(const config::BuildConfig& config) {
  return config.is_tvm_ffi() ? "tvm-ffi-ext" : "torch-ext";
}

std::vector<std::string> layout_violations(const fs::path& project, const config::BuildConfig& config) {
  std::vector<std::string> out;
  std::string module = config.general.python_name();
  std::string where = extension_dir_name(config) + "/" + module;
  fs::path package = project / extension_dir_name(config) / module;
  std::error_code ec;
  if (!fs::is_regular_file(package / "__init__.py", ec)) {
    out.push_back("Python module at " + where + " must contain __init__.py");
  }
  if (fs::exists(package / module, ec)) {
    out.push_back("Python module at " + where + " must not have " + module + " file or directory.");
  }
  return out;
}

std::vector<std::string> project_python_files(const fs::path& project) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(project, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (it->is_directory(ec)) {
      bool top_build = it.depth() == 0 && (name == "build" || name == "result");
      if (top_build || util::starts_with(name, ".") || name == "__pycache__" || name == "node_modules") {
        it.disable_recursion_pending();
      }
      continue;
    }
    if (util::ends_with(name, ".py") && it->is_regular_file(ec)) {
      out.push_back(it->path().lexically_relative(project).generic_string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

util::Result<std::vector<std::string>> op_registration_violations(const fs::path& project, const fs::path& python) {
  auto files = project_python_files(project);
  if (files.empty()) return std::vector<std::string>{};
  std::vector<std::string> argv = {python.string(), "-c", build_script("check_torch_ops.py")};
  argv.insert(argv.end(), files.begin(), files.end());
  util::ProcessOptions options;
  options.cwd = project;
  auto run = util::run_process(argv, options);
  if (!run) return std::move(run).error();
  if (!run->success()) {
    return util::Error(util::ErrorKind::process, "The op-registration check failed to run")
        .with_cause(std::string(util::trim(run->stderr_text)));
  }
  std::vector<std::string> out;
  for (const auto& line : util::split(run->stdout_text, '\n')) {
    if (!util::trim(line).empty()) out.push_back(line);
  }
  return out;
}

util::Status check_project(const fs::path& project, const config::BuildConfig& config, const fs::path& python) {
  auto layout = layout_violations(project, config);
  if (!layout.empty()) {
    util::Error error(util::ErrorKind::config, layout.front());
    for (size_t i = 1; i < layout.size(); ++i) error.causes.push_back(layout[i]);
    return error;
  }
  auto lint = op_registration_violations(project, python);
  if (!lint) return std::move(lint).error();
  if (!lint->empty()) {
    return util::Error(util::ErrorKind::config,
                       "Found Torch library registrations that do not use `add_op_namespace_prefix`:\n" +
                           util::join(*lint, "\n"))
        .with_hint("register ops with `torch.library.custom_op(add_op_namespace_prefix(\"name\"), ...)`");
  }
  return {};
}

}  // namespace kb::builder
