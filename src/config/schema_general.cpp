// The [general] table and its sub-tables, plus KernelDependency lists (docs/build-toml.md).
#include <algorithm>

#include "config/kernel_name.h"
#include "config/schema.h"
#include "util/strings.h"

namespace kb::config::detail {

namespace {

std::vector<std::string> backend_names() {
  std::vector<std::string> out;
  for (Backend b : all_backends) out.emplace_back(to_string(b));
  return out;
}

std::vector<Backend> parse_backends(const toml::node& node, const std::string& path, DiagnosticSink& sink) {
  std::vector<Backend> out;
  const auto* array = node.as_array();
  if (array == nullptr) {
    type_error(node, path, "array of strings", sink);
    return out;
  }
  for (size_t i = 0; i < array->size(); ++i) {
    const toml::node& item = *array->get(i);
    auto text = read_string(item, path + "[" + std::to_string(i) + "]", sink);
    if (!text) continue;
    auto backend = parse_backend(*text);
    if (!backend) {
      std::vector<std::string> hints;
      if (auto suggestion = util::did_you_mean(*text, backend_names())) hints.push_back("did you mean `" + *suggestion + "`?");
      sink.error(item.source(), "unknown backend `" + *text + "` in `" + path +
                                    "`, expected one of: " + util::join(backend_names(), ", "),
                 std::move(hints));
      continue;
    }
    if (std::find(out.begin(), out.end(), *backend) != out.end()) {
      sink.warning(item.source(), "backend `" + *text + "` is listed more than once in `" + path + "`");
      continue;
    }
    out.push_back(*backend);
  }
  return out;
}

KernelDependency parse_kernel_dependency(const toml::node& node, const std::string& path, DiagnosticSink& sink) {
  KernelDependency dependency;
  const auto* table = node.as_table();
  if (table == nullptr) {
    type_error(node, path, "table", sink);
    return dependency;
  }
  TableReader reader(*table, path, sink);
  if (auto repo_id = reader.string("repo-id", true)) dependency.repo_id = *repo_id;
  const toml::node* version = reader.take("version");
  const toml::node* revision = reader.take("revision");
  if (version != nullptr) dependency.version = read_non_negative(*version, reader.path_of("version"), sink);
  if (revision != nullptr) dependency.revision = read_string(*revision, reader.path_of("revision"), sink);
  if (version != nullptr && revision != nullptr) {
    sink.error(revision->source(), "`version` and `revision` are mutually exclusive");
  } else if (version == nullptr && revision == nullptr) {
    sink.error(table->source(), "either `version` or `revision` must be specified");
  }
  reader.finish();
  return dependency;
}

GeneralBackendConfig parse_backend_section(const toml::table& table, const std::string& path, Edition edition,
                                           Backend backend, DiagnosticSink& sink) {
  TableReader reader(table, path, sink);
  GeneralBackendConfig section;
  if (backend == Backend::cuda) {
    section.minver = reader.version("minver");
    section.maxver = reader.version("maxver");
  }
  if (edition == Edition::v5 && backend != Backend::tpu) {
    if (const toml::node* node = reader.take("kernel-depends")) {
      section.kernel_depends = parse_kernel_depends(*node, reader.path_of("kernel-depends"), sink);
    }
  }
  if (auto names = reader.strings("python-depends")) section.python_depends = std::move(*names);
  reader.finish();
  return section;
}

}  // namespace

std::vector<KernelDependency> parse_kernel_depends(const toml::node& node, const std::string& path,
                                                   DiagnosticSink& sink) {
  std::vector<KernelDependency> out;
  const auto* array = node.as_array();
  if (array == nullptr) {
    type_error(node, path, "array of tables", sink);
    return out;
  }
  for (size_t i = 0; i < array->size(); ++i) {
    out.push_back(parse_kernel_dependency(*array->get(i), path + "[" + std::to_string(i) + "]", sink));
  }
  return out;
}

General parse_general(TableReader& root, Edition edition, bool& license_missing) {
  General general;
  DiagnosticSink& sink = root.sink();
  const toml::table* table = root.table("general", true);
  if (table == nullptr) return general;
  TableReader reader(*table, "general", sink);

  if (const toml::node* node = reader.require("name")) {
    if (auto name = read_string(*node, "general.name", sink)) {
      if (auto valid = validate_kernel_name(*name); !valid) sink.error(node->source(), valid.error().message);
      general.name = *name;
    }
  }
  bool legacy_v3 = edition == Edition::v3;
  if (auto version = reader.non_negative("version", !legacy_v3)) general.version = *version;
  if (edition == Edition::v5) reader.non_negative("edition", true);  // probed to be 5 already
  const toml::node* license = reader.take("license");
  if (license != nullptr) {
    if (auto text = read_string(*license, "general.license", sink)) general.license = *text;
  } else if (legacy_v3) {
    license_missing = true;
  } else {
    reader.require("license");
  }
  general.upstream = reader.git_url("upstream");
  if (!legacy_v3) general.source = reader.git_url("source");
  if (const toml::node* node = reader.require("backends")) {
    general.backends = parse_backends(*node, "general.backends", sink);
  }
  if (auto names = reader.strings("python-depends")) general.python_depends = std::move(*names);
  if (edition == Edition::v5) {
    if (const toml::node* node = reader.take("kernel-depends")) {
      general.kernel_depends = parse_kernel_depends(*node, "general.kernel-depends", sink);
    }
    general.kernels_minver = reader.version("kernels-minver");
  }
  if (const toml::table* hub = reader.table("hub")) {
    TableReader hub_reader(*hub, "general.hub", sink);
    HubConfig config;
    config.repo_id = hub_reader.string("repo-id");
    config.branch = hub_reader.string("branch");
    hub_reader.finish();
    general.hub = config;
  }
  struct Section {
    const char* key;
    Backend backend;
    std::optional<GeneralBackendConfig>* target;
  };
  const Section sections[] = {{"cuda", Backend::cuda, &general.cuda},
                              {"neuron", Backend::neuron, &general.neuron},
                              {"tpu", Backend::tpu, &general.tpu},
                              {"xpu", Backend::xpu, &general.xpu}};
  for (const auto& section : sections) {
    if (section.backend == Backend::tpu && edition != Edition::v5) continue;
    if (const toml::table* sub = reader.table(section.key)) {
      *section.target = parse_backend_section(*sub, std::string("general.") + section.key, edition, section.backend, sink);
    }
  }
  reader.finish();
  return general;
}

}  // namespace kb::config::detail
