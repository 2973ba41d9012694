// The framework sections [torch], [torch-noarch] and [tvm-ffi] (docs/build-toml.md).
#include "config/schema.h"
#include "util/strings.h"

namespace kb::config::detail {

namespace {

std::optional<StableAbi> parse_stable_abi(const toml::node& node, const std::string& path, Edition edition,
                                          DiagnosticSink& sink) {
  if (node.is_string()) {
    auto version = read_version(node, path, sink);
    if (!version) return std::nullopt;
    return StableAbi{version, {}};
  }
  const auto* table = node.as_table();
  if (table == nullptr || edition != Edition::v5) {
    std::vector<std::string> hints;
    if (table != nullptr) hints.emplace_back("per-backend `stable-abi` tables need `edition = 5` in [general]");
    type_error(node, path, edition == Edition::v5 ? "string or table" : "string", sink, std::move(hints));
    return std::nullopt;
  }
  StableAbi abi;
  std::vector<std::string> names;
  for (Backend b : all_backends) names.emplace_back(to_string(b));
  for (const auto& [key, value] : *table) {
    std::string name(key.str());
    auto backend = parse_backend(name);
    if (!backend) {
      std::vector<std::string> hints;
      if (auto suggestion = util::did_you_mean(name, names)) hints.push_back("did you mean `" + *suggestion + "`?");
      sink.error(key.source(), "unknown backend `" + name + "` in [" + path + "], expected one of: " + util::join(names, ", "),
                 std::move(hints));
      continue;
    }
    if (auto version = read_version(value, path + "." + name, sink)) abi.per_backend[*backend] = *version;
  }
  return abi;
}

TorchConfig parse_torch(const toml::table& table, Edition edition, DiagnosticSink& sink) {
  TableReader reader(table, "torch", sink);
  TorchConfig torch;
  if (auto src = reader.strings("src")) torch.src = std::move(*src);
  torch.include = reader.strings("include");
  torch.minver = reader.version("minver");
  torch.maxver = reader.version("maxver");
  torch.pyext = reader.strings("pyext");
  if (edition != Edition::v3) {
    torch.cxx_flags = reader.strings("cxx-flags");
    if (const toml::node* node = reader.take("stable-abi")) {
      torch.stable_abi = parse_stable_abi(*node, "torch.stable-abi", edition, sink);
    }
  }
  reader.finish();
  return torch;
}

// Both spellings of one [torch-noarch] key (see the QUIRK in docs/build-toml.md).
std::optional<std::vector<std::string>> either_spelling(TableReader& reader, const char* underscore, const char* dash) {
  const toml::node* first = reader.take(underscore);
  const toml::node* second = reader.take(dash);
  if (first != nullptr && second != nullptr) {
    reader.sink().error(second->source(),
                        "`" + std::string(dash) + "` and `" + underscore + "` are the same key in [torch-noarch]; set only one",
                        {"use `" + std::string(underscore) + "`: it is the spelling every kernel-builder reads"});
    return std::nullopt;
  }
  const toml::node* node = first != nullptr ? first : second;
  if (node == nullptr) return std::nullopt;
  return read_strings(*node, reader.path_of(first != nullptr ? underscore : dash), reader.sink());
}

TorchNoarchConfig parse_torch_noarch(const toml::table& table, DiagnosticSink& sink) {
  TableReader reader(table, "torch-noarch", sink);
  TorchNoarchConfig noarch;
  noarch.pyext = reader.strings("pyext");
  noarch.cuda_capabilities = either_spelling(reader, "cuda_capabilities", "cuda-capabilities");
  noarch.rocm_archs = either_spelling(reader, "rocm_archs", "rocm-archs");
  reader.finish();
  return noarch;
}

TvmFfiConfig parse_tvm_ffi(const toml::table& table, Edition edition, DiagnosticSink& sink) {
  TableReader reader(table, "tvm-ffi", sink);
  TvmFfiConfig tvm;
  if (auto src = reader.strings("src", true)) tvm.src = std::move(*src);
  tvm.include = reader.strings("include");
  tvm.pyext = reader.strings("pyext");
  if (edition != Edition::v3) tvm.cxx_flags = reader.strings("cxx-flags");
  reader.finish();
  return tvm;
}

}  // namespace

std::optional<Framework> parse_framework(TableReader& root, Edition edition) {
  DiagnosticSink& sink = root.sink();
  const toml::table* torch = root.table("torch");
  const toml::table* noarch = edition == Edition::v3 ? nullptr : root.table("torch-noarch");
  const toml::table* tvm = root.table("tvm-ffi");
  int count = (torch != nullptr) + (noarch != nullptr) + (tvm != nullptr);
  if (count == 0 && edition == Edition::v3) return TorchNoarchConfig{};  // v3: no framework = noarch
  if (count != 1) {
    // Point at the second section when there are several; at the top of the file when none.
    const toml::table* extra = nullptr;
    if (count > 1) {
      for (const toml::table* t : {torch, noarch, tvm}) {
        if (t != nullptr && (extra == nullptr || extra->source().begin < t->source().begin)) extra = t;
      }
    }
    sink.error(extra != nullptr ? extra->source() : toml::source_region{},
               "exactly one of [torch], [torch-noarch] or [tvm-ffi] must be present");
    return std::nullopt;
  }
  if (torch != nullptr) return parse_torch(*torch, edition, sink);
  if (noarch != nullptr) return parse_torch_noarch(*noarch, sink);
  return parse_tvm_ffi(*tvm, edition, sink);
}

}  // namespace kb::config::detail
