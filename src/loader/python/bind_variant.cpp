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

std::optional<variant::MajorMinor> major_minor_of(const py::dict& fields, const char* key) {
  if (!fields.contains(key) || fields[key].is_none()) return std::nullopt;
  auto pair = fields[key].cast<std::pair<uint64_t, uint64_t>>();
  return variant::MajorMinor{pair.first, pair.second};
}

std::string string_of(const py::dict& fields, const char* key) {
  return fields.contains(key) && !fields[key].is_none() ? fields[key].cast<std::string>() : std::string();
}

// The parts of a variant name built from its fields (the keys of `parse_variant_name`, versions as
// (major, minor)), for objects the user constructs: dict(framework_str, backend_str, arch_str,
// variant_str). `ValueError` for a kind or backend the name format does not have.
py::dict render_variant_name(const py::dict& fields) {
  variant::VariantName name;
  auto kind = string_of(fields, "kind");
  if (kind == "torch") {
    name.kind = variant::VariantKind::torch_arch;
  } else if (kind == "stable-abi") {
    name.kind = variant::VariantKind::stable_abi;
  } else if (kind == "tvm-ffi") {
    name.kind = variant::VariantKind::tvm_ffi;
  } else if (kind == "noarch") {
    name.kind = variant::VariantKind::noarch;
  } else {
    throw py::value_error("Unknown variant kind: '" + kind + "'");
  }
  name.framework_version = major_minor_of(fields, "framework_version");
  if (fields.contains("cxx11_abi") && !fields["cxx11_abi"].is_none()) {
    name.abi_tag = fields["cxx11_abi"].cast<bool>() ? variant::AbiTag::cxx11 : variant::AbiTag::cxx98;
  }
  if (auto backend_name = string_of(fields, "backend"); !backend_name.empty()) {
    auto backend = config::parse_backend(backend_name);
    if (!backend) throw py::value_error("Unknown backend: '" + backend_name + "'");
    name.compute.backend = *backend;
    name.compute.version = major_minor_of(fields, "backend_version");
  }
  name.cpu = string_of(fields, "cpu");
  name.os = string_of(fields, "os");
  name.noarch_backend = string_of(fields, "noarch_backend");
  py::dict out;
  out["framework_str"] = name.framework_string();
  out["backend_str"] = name.compute.to_string();
  out["arch_str"] = name.arch_string();
  out["variant_str"] = name.to_string();
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
  m.def("render_variant_name", &render_variant_name, py::arg("fields"));
  // (backend name, (major, minor, "major.minor") or None) of a compute string (`cu126`, `cpu`);
  // None when it is not one.
  m.def(
      "parse_compute",
      [](const std::string& text) -> py::object {
        auto compute = variant::Compute::parse(text);
        if (!compute) return py::none();
        return py::make_tuple(std::string(config::to_string(compute->backend)), version_tuple(compute->version));
      },
      py::arg("text"));
  m.def("backends", &backends);
  m.def("major_minor", &major_minor, py::arg("text"));
  m.def(
      "compute_string", [](const py::dict& system) { return compute_string(system_from_dict(system)); },
      py::arg("system"));
}

}  // namespace kb::loader::python
