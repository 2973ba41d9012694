// Variant names for the facade's `kernels.variants` classes: the parsed fields of
// `variant::VariantName` and the rendering of each part, so that Python holds them and parses nothing.
#include <pybind11/stl.h>

#include "common.h"
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

}  // namespace

void bind_variant(py::module_& m) {
  m.def("parse_variant_name", &parse_variant_name, py::arg("name"));
}

}  // namespace kb::loader::python
