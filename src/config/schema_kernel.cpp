// [kernel.<name>] compile units (docs/build-toml.md) and the top-level walk.
#include <algorithm>
#include <array>

#include "config/schema.h"
#include "util/strings.h"

namespace kb::config::detail {

namespace {

constexpr std::array<std::string_view, 11> build_dependencies = {
    "torch",      "cutlass_2_10", "cutlass_3_5", "cutlass_3_6", "cutlass_3_8", "cutlass_3_9",
    "cutlass_4_0", "cutlass_4_4", "cutlass_4_5", "sycl_tla",    "metal-cpp"};

constexpr std::array<Backend, 5> kernel_backends = {Backend::cpu, Backend::cuda, Backend::metal, Backend::rocm,
                                                    Backend::xpu};

// Keys that exist only for one kernel backend.
struct BackendKey {
  const char* key;
  Backend backend;
};
constexpr std::array<BackendKey, 6> backend_keys = {{{"cuda-capabilities", Backend::cuda},
                                                     {"cuda-flags", Backend::cuda},
                                                     {"cuda-minver", Backend::cuda},
                                                     {"rocm-archs", Backend::rocm},
                                                     {"hip-flags", Backend::rocm},
                                                     {"sycl-flags", Backend::xpu}}};

std::vector<std::string> to_strings(auto const& items) {
  std::vector<std::string> out;
  for (const auto& item : items) out.emplace_back(item);
  return out;
}

std::optional<Backend> parse_kernel_backend(TableReader& reader) {
  const toml::node* node = reader.require("backend");
  if (node == nullptr) return std::nullopt;
  auto text = read_string(*node, reader.path_of("backend"), reader.sink());
  if (!text) return std::nullopt;
  std::vector<std::string> names;
  for (Backend b : kernel_backends) names.emplace_back(to_string(b));
  auto backend = parse_backend(*text);
  if (!backend || std::find(kernel_backends.begin(), kernel_backends.end(), *backend) == kernel_backends.end()) {
    std::vector<std::string> hints;
    if (backend) {
      hints.push_back("`" + *text + "` has no compiled kernels; list it in `general.backends` only");
    } else if (auto suggestion = util::did_you_mean(*text, names)) {
      hints.push_back("did you mean `" + *suggestion + "`?");
    }
    reader.sink().error(node->source(),
                        "invalid backend `" + *text + "` for `" + reader.path_of("backend") +
                            "`, expected one of: " + util::join(names, ", "),
                        std::move(hints));
    return std::nullopt;
  }
  return backend;
}

std::vector<std::string> parse_depends(TableReader& reader) {
  const toml::node* node = reader.require("depends");
  if (node == nullptr) return {};
  auto names = read_strings(*node, reader.path_of("depends"), reader.sink());
  if (!names) return {};
  const auto* array = node->as_array();
  std::vector<std::string> known = to_strings(build_dependencies);
  for (size_t i = 0; i < names->size(); ++i) {
    const std::string& name = (*names)[i];
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::vector<std::string> hints;
    if (auto suggestion = util::did_you_mean(name, known)) hints.push_back("did you mean `" + *suggestion + "`?");
    reader.sink().error(array->get(i)->source(),
                        "unknown build dependency `" + name + "` in `" + reader.path_of("depends") +
                            "`, expected one of: " + util::join(known, ", "),
                        std::move(hints));
  }
  return std::move(*names);
}

KernelUnit parse_kernel(const std::string& name, const toml::table& table, DiagnosticSink& sink) {
  TableReader reader(table, "kernel." + toml_key(name), sink);
  KernelUnit unit;
  unit.name = name;
  std::optional<Backend> backend = parse_kernel_backend(reader);
  if (backend) unit.backend = *backend;
  unit.depends = parse_depends(reader);
  if (auto src = reader.strings("src", true)) unit.src = std::move(*src);
  unit.include = reader.strings("include");
  unit.cxx_flags = reader.strings("cxx-flags");
  // Backend-specific keys: read for their own backend; when the backend itself is invalid,
  // still type-check them so that one mistake does not hide the others.
  auto applies = [&](Backend b) { return !backend || *backend == b; };
  if (applies(Backend::cuda)) {
    unit.cuda_capabilities = reader.strings("cuda-capabilities");
    unit.cuda_flags = reader.strings("cuda-flags");
    unit.cuda_minver = reader.version("cuda-minver");
  }
  if (applies(Backend::rocm)) {
    unit.rocm_archs = reader.strings("rocm-archs");
    unit.hip_flags = reader.strings("hip-flags");
  }
  if (applies(Backend::xpu)) unit.sycl_flags = reader.strings("sycl-flags");
  std::map<std::string, std::string> elsewhere;
  for (const auto& entry : backend_keys) {
    elsewhere[entry.key] = "`" + std::string(entry.key) + "` is only valid in kernels with `backend = \"" +
                           std::string(to_string(entry.backend)) + "\"`";
  }
  reader.finish(elsewhere);
  return unit;
}

}  // namespace

std::vector<KernelUnit> parse_kernels(TableReader& root) {
  std::vector<KernelUnit> units;
  const toml::table* kernels = root.table("kernel");
  if (kernels == nullptr) return units;
  // toml++ keeps keys sorted; the model wants file order.
  std::vector<std::pair<const toml::key*, const toml::node*>> entries;
  for (const auto& [key, node] : *kernels) entries.emplace_back(&key, &node);
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.second->source().begin < b.second->source().begin;
  });
  for (const auto& [key, node] : entries) {
    std::string name(key->str());
    const auto* table = node->as_table();
    if (table == nullptr) {
      type_error(*node, "kernel." + toml_key(name), "table", root.sink());
      continue;
    }
    units.push_back(parse_kernel(name, *table, root.sink()));
  }
  return units;
}

SchemaOutcome parse_schema(const toml::table& root, Edition edition, DiagnosticSink& sink) {
  TableReader reader(root, "", sink);
  SchemaOutcome outcome;
  BuildConfig config;
  config.general = parse_general(reader, edition, outcome.license_missing);
  config.general.edition = 5;
  std::optional<Framework> framework = parse_framework(reader, edition);
  config.kernels = parse_kernels(reader);
  reader.finish();
  if (framework) config.framework = std::move(*framework);
  outcome.valid = !sink.has_errors();
  outcome.config = std::move(config);
  return outcome;
}

}  // namespace kb::config::detail
