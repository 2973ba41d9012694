// Rendering the init scaffold from the embedded templates (see scaffold.h).
#include "codegen/scaffold/scaffold.h"

#include <algorithm>

#include "codegen/templating/template.h"
#include "codegen/templating/template_path.h"
#include "util/embedded.h"
#include "util/strings.h"
#include "variant/rocm_archs.h"

namespace kb::scaffold::templates {
const std::vector<kb::util::EmbeddedFile>& embedded_files();
}

namespace kb::scaffold {

using config::Backend;
namespace templating = codegen::templating;

namespace {

// Per-backend source directories of the template tree; other files are always written.
struct BackendFiles {
  std::string_view prefix;
  std::vector<Backend> needed_by;  // written when any of these backends is selected
};

const std::vector<BackendFiles>& backend_files() {
  static const std::vector<BackendFiles> table = {
      {"{n}_cpu/", {Backend::cpu}},
      {"{n}_cuda/", {Backend::cuda, Backend::rocm}},  // the .cu is shared by cuda and rocm
      {"{n}_metal/", {Backend::metal}},
      {"{n}_xpu/", {Backend::xpu}},
  };
  return table;
}

bool selected(const std::vector<Backend>& backends, Backend b) {
  return std::find(backends.begin(), backends.end(), b) != backends.end();
}

bool wanted(std::string_view template_path, const std::vector<Backend>& backends) {
  for (const auto& entry : backend_files()) {
    if (!util::starts_with(template_path, entry.prefix)) continue;
    return std::any_of(entry.needed_by.begin(), entry.needed_by.end(), [&](Backend b) { return selected(backends, b); });
  }
  return true;
}

// Dot files are stored as `dot-<name>` so that tools never treat them as the repository's own.
std::string output_path(std::string_view template_path) {
  auto slash = template_path.rfind('/');
  size_t base = slash == std::string_view::npos ? 0 : slash + 1;
  if (template_path.substr(base, 4) != "dot-") return std::string(template_path);
  std::string path(template_path.substr(0, base));
  path += '.';
  path += template_path.substr(base + 4);
  return path;
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  for (const auto& item : items) quoted.push_back("\"" + item + "\"");
  return util::join(quoted, ", ");
}

// Strings, and one flag per scaffoldable backend (`{% if cuda %}`), set when it is selected;
// every flag is defined so that a misspelt one is an error in strict mode.
templating::Context make_context(const ScaffoldOptions& options) {
  std::vector<std::string> backend_names;
  for (Backend b : options.backends) backend_names.emplace_back(config::to_string(b));
  templating::Context context = templating::string_context({
      {"name", options.identity.display_name},
      {"python_name", options.identity.python_name},
      {"class_name", options.identity.class_name},
      {"repo_id", options.identity.repo_id},
      {"license", options.license},
      {"backends", quoted_list(backend_names)},
      {"rocm_archs", quoted_list(variant::supported_rocm_archs())},
  });
  for (Backend b : scaffold_backends()) {
    context[std::string(config::to_string(b))] = templating::Value::of(selected(options.backends, b));
  }
  return context;
}

}  // namespace

const std::vector<Backend>& scaffold_backends() {
  static const std::vector<Backend> backends = {Backend::cpu, Backend::cuda, Backend::metal, Backend::rocm, Backend::xpu};
  return backends;
}

util::Result<std::vector<Backend>> parse_scaffold_backends(const std::vector<std::string>& values) {
  std::vector<Backend> out;
  auto add = [&](Backend b) {
    if (!selected(out, b)) out.push_back(b);
  };
  for (const auto& value : values) {
    if (value == "all") {
      for (Backend b : scaffold_backends()) add(b);
      continue;
    }
    auto backend = config::parse_backend(value);
    if (!backend || !selected(scaffold_backends(), *backend)) {
      return util::Error(util::ErrorKind::usage, "Invalid backend `" + value + "`")
          .with_hint("possible values: all, cpu, cuda, metal, rocm, xpu");
    }
    add(*backend);
  }
  if (out.empty()) {
#if defined(__APPLE__)
    out.push_back(Backend::metal);
#else
    out.push_back(Backend::cuda);
#endif
  }
  return out;
}

util::Result<codegen::GeneratedFiles> render_scaffold(const ScaffoldOptions& options) {
  templating::Context context = make_context(options);
  const std::map<std::string, std::string> path_values = {{"n", options.identity.python_name}};
  codegen::GeneratedFiles files;
  for (const auto& file : templates::embedded_files()) {
    if (!wanted(file.path, options.backends)) continue;
    std::string name = "templates/init/" + std::string(file.path);
    auto content = templating::render_template(file.content, context, name, templating::Undefined::strict);
    if (!content) {
      return util::Error(util::ErrorKind::generic, "internal error: cannot render the template `" + name + "`")
          .with_cause(content.error().message);
    }
    files[templating::render_path(output_path(file.path), path_values)] = std::move(content).value();
  }
  return files;
}

}  // namespace kb::scaffold
