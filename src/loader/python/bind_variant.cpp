// Variant names for the facade's `kernels.variants` classes: the parsed fields of
// `variant::VariantName` and the rendering of each part, so that Python holds them and parses nothing;
// the backend list (`kernels.Backend`), version prefixes and the compute string for `kernels._system`.
#include <pybind11/stl.h>

#include "common.h"
#include "config/backend.h"
#include "loader/selection.h"
#include "variant/major_minor.h"
#include "variant/variant_name.h"

namespace kb::loader::python {

namespace {

py::object version_tuple(const std::optional<variant::MajorMinor>& version) {
  if (!version) return py::none();
  return py::make_tuple(version->major, version->minor, version->to_string());
}

py::object cxx11_abi(variant::AbiTag tag) {
  switch (tag) {
    case variant::AbiTag::cxx11: return py::bool_(true);
    case variant::AbiTag::cxx98: return py::bool_(false);
    case variant::AbiTag::none: break;
  }
  return py::none();
}

// dict(kind, variant_str, framework_str, framework_version, cxx11_abi, arch_str, backend,
// backend_str, backend_version, cpu, os, noarch_backend) or None for an invalid name.
// Versions are (major, minor, "major.minor").
py::object parse_variant_name(const std::string& name) {
  auto parsed = variant::VariantName::parse(name);
  if (!parsed) return py::none();
  py::dict out;
  out["kind"] = std::string(variant::to_string(parsed->kind));
  out["variant_str"] = parsed->to_string();
  out["framework_str"] = parsed->framework_string();
  out["framework_version"] = version_tuple(parsed->framework_version);
  out["cxx11_abi"] = cxx11_abi(parsed->abi_tag);
  out["arch_str"] = parsed->arch_string();
  if (parsed->is_arch()) {
    out["backend"] = std::string(config::to_string(parsed->compute.backend));
    out["backend_str"] = parsed->compute.to_string();
    out["backend_version"] = version_tuple(parsed->compute.version);
    out["cpu"] = parsed->cpu;
    out["os"] = parsed->os;
  } else {
    out["noarch_backend"] = parsed->noarch_backend;
  }
  return out;
}

// The member name of `backend` in the facade's `kernels.Backend` enum (upstream's spelling).
std::string enum_member_name(config::Backend backend) {
  switch (backend) {
    case config::Backend::cann: return "CANN";
    case config::Backend::cpu: return "CPU";
    case config::Backend::cuda: return "CUDA";
    case config::Backend::metal: return "Metal";
    case config::Backend::neuron: return "Neuron";
    case config::Backend::rocm: return "ROCm";
    case config::Backend::tpu: return "TPU";
    case config::Backend::xpu: return "XPU";
  }
  return std::string(config::to_string(backend));
}

// [(member name, value)] of every backend of `config::all_backends`, in its order:
// `kernels.Backend` is built from it, so the list has one owner.
std::vector<std::pair<std::string, std::string>> backends() {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto backend : config::all_backends) {
    out.emplace_back(enum_member_name(backend), std::string(config::to_string(backend)));
  }
  return out;
}

// "2.11" of "2.11.0+cu130", "12" -> "12.0"; "" when `text` does not start with a number.
std::string major_minor(const std::string& text) {
  auto version = variant::MajorMinor::parse_prefix(text);
  return version ? version->to_string() : "";
}

}  // namespace

void bind_variant(py::module_& m) {
  m.def("parse_variant_name", &parse_variant_name, py::arg("name"));
  m.def("backends", &backends);
  m.def("major_minor", &major_minor, py::arg("text"));
  m.def(
      "compute_string", [](const py::dict& system) { return compute_string(system_from_dict(system)); },
      py::arg("system"));
}

}  // namespace kb::loader::python
