// Edition-5 build.toml serialisation (see writer.h).
#include "config/writer.h"

#include "config/toml_text.h"

namespace kb::config {

namespace {

// A normalised Version; `0` normalises to no components, which must still be written as a
// version string that parses.
std::string version_text(const Version& version) {
  std::string text = version.to_string();
  return toml_string(text.empty() ? "0" : text);
}

class Emitter {
 public:
  explicit Emitter(const TomlComments& comments) : comments_(comments) {}

  void header(const std::string& anchor) {
    if (!out_.empty()) out_ += "\n";
    leading(anchor);
    out_ += "[" + anchor + "]" + trailing(anchor) + "\n";
    table_ = anchor;
  }
  void entry(const std::string& key, const std::string& value) {
    std::string anchor = table_ + "." + key;
    leading(anchor);
    out_ += key + " = " + value + trailing(anchor) + "\n";
  }
  void strings(const std::string& key, const std::optional<std::vector<std::string>>& items) {
    if (items) entry(key, toml_string_array(*items));
  }
  void version(const std::string& key, const std::optional<Version>& value) {
    if (value) entry(key, version_text(*value));
  }
  std::string finish() {
    if (!comments_.final_lines.empty()) {
      out_ += "\n";
      for (const auto& line : comments_.final_lines) out_ += line + "\n";
    }
    return std::move(out_);
  }

 private:
  void leading(const std::string& anchor) {
    auto it = comments_.leading.find(anchor);
    if (it == comments_.leading.end()) return;
    for (const auto& line : it->second) out_ += line + "\n";
  }
  std::string trailing(const std::string& anchor) const {
    auto it = comments_.trailing.find(anchor);
    return it == comments_.trailing.end() ? std::string() : "  " + it->second;
  }

  const TomlComments& comments_;
  std::string out_;
  std::string table_;
};

std::string kernel_depends_value(const std::vector<KernelDependency>& dependencies) {
  std::string out = "[";
  for (size_t i = 0; i < dependencies.size(); ++i) {
    const KernelDependency& dependency = dependencies[i];
    if (i > 0) out += ", ";
    out += "{ repo-id = " + toml_string(dependency.repo_id);
    if (dependency.version) {
      out += ", version = " + std::to_string(*dependency.version);
    } else if (dependency.revision) {
      out += ", revision = " + toml_string(*dependency.revision);
    }
    out += " }";
  }
  return out + "]";
}

void write_general(Emitter& emit, const General& general) {
  emit.header("general");
  emit.entry("name", toml_string(general.name));
  emit.entry("version", std::to_string(general.version));
  emit.entry("edition", "5");
  emit.entry("license", toml_string(general.license));
  if (general.upstream) emit.entry("upstream", toml_string(general.upstream->original));
  if (general.source) emit.entry("source", toml_string(general.source->original));
  std::vector<std::string> backends;
  for (Backend b : general.backends) backends.emplace_back(to_string(b));
  emit.entry("backends", toml_string_array(backends));
  if (!general.kernel_depends.empty()) emit.entry("kernel-depends", kernel_depends_value(general.kernel_depends));
  if (!general.python_depends.empty()) emit.entry("python-depends", toml_string_array(general.python_depends));
  emit.version("kernels-minver", general.kernels_minver);

  auto section = [&](const char* name, const std::optional<GeneralBackendConfig>& config) {
    if (!config) return;
    emit.header(std::string("general.") + name);
    emit.version("minver", config->minver);
    emit.version("maxver", config->maxver);
    if (!config->kernel_depends.empty()) emit.entry("kernel-depends", kernel_depends_value(config->kernel_depends));
    if (!config->python_depends.empty()) emit.entry("python-depends", toml_string_array(config->python_depends));
  };
  section("cuda", general.cuda);
  if (general.hub) {
    emit.header("general.hub");
    if (general.hub->repo_id) emit.entry("repo-id", toml_string(*general.hub->repo_id));
    if (general.hub->branch) emit.entry("branch", toml_string(*general.hub->branch));
  }
  section("neuron", general.neuron);
  section("tpu", general.tpu);
  section("xpu", general.xpu);
}

void write_framework(Emitter& emit, const Framework& framework) {
  if (const auto* torch = std::get_if<TorchConfig>(&framework)) {
    emit.header("torch");
    emit.entry("src", toml_string_array(torch->src));
    emit.strings("include", torch->include);
    emit.version("minver", torch->minver);
    emit.version("maxver", torch->maxver);
    emit.strings("pyext", torch->pyext);
    emit.strings("cxx-flags", torch->cxx_flags);
    if (torch->stable_abi && torch->stable_abi->all) {
      emit.version("stable-abi", torch->stable_abi->all);
    } else if (torch->stable_abi) {
      emit.header("torch.stable-abi");
      for (const auto& [backend, version] : torch->stable_abi->per_backend) {
        emit.entry(std::string(to_string(backend)), version_text(version));
      }
    }
  } else if (const auto* noarch = std::get_if<TorchNoarchConfig>(&framework)) {
    emit.header("torch-noarch");
    emit.strings("pyext", noarch->pyext);
    emit.strings("cuda_capabilities", noarch->cuda_capabilities);
    emit.strings("rocm_archs", noarch->rocm_archs);
  } else if (const auto* tvm = std::get_if<TvmFfiConfig>(&framework)) {
    emit.header("tvm-ffi");
    emit.entry("src", toml_string_array(tvm->src));
    emit.strings("include", tvm->include);
    emit.strings("pyext", tvm->pyext);
    emit.strings("cxx-flags", tvm->cxx_flags);
  }
}

void write_kernel(Emitter& emit, const KernelUnit& unit) {
  emit.header("kernel." + toml_key(unit.name));
  emit.entry("backend", toml_string(to_string(unit.backend)));
  emit.entry("depends", toml_string_array(unit.depends));
  emit.entry("src", toml_string_array(unit.src));
  emit.strings("include", unit.include);
  emit.strings("cxx-flags", unit.cxx_flags);
  emit.strings("cuda-capabilities", unit.cuda_capabilities);
  emit.strings("cuda-flags", unit.cuda_flags);
  emit.version("cuda-minver", unit.cuda_minver);
  emit.strings("rocm-archs", unit.rocm_archs);
  emit.strings("hip-flags", unit.hip_flags);
  emit.strings("sycl-flags", unit.sycl_flags);
}

}  // namespace

std::string to_toml(const BuildConfig& config) { return to_toml(config, TomlComments{}); }

std::string to_toml(const BuildConfig& config, const TomlComments& comments) {
  Emitter emit(comments);
  write_general(emit, config.general);
  write_framework(emit, config.framework);
  for (const auto& unit : config.kernels) write_kernel(emit, unit);
  return emit.finish();
}

}  // namespace kb::config
