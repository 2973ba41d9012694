// Bindings for metadata.json and digests: the facade's `Metadata` class wraps the dict built
// here, so parsing rules live in src/metadata only.
#include <pybind11/stl.h>

#include <vector>

#include "common.h"
#include "config/version.h"
#include "loader/dependencies.h"
#include "metadata/digest.h"
#include "metadata/metadata.h"
#include "util/fs.h"

namespace kb::loader::python {
namespace {

py::object git_state(const std::optional<metadata::GitState>& state) {
  if (!state) return py::none();
  py::dict d;
  d["commit"] = state->commit;
  d["dirty"] = state->dirty;
  return d;
}

py::dict to_dict(const metadata::Metadata& md) {
  py::dict d;
  d["name"] = md.name;
  d["id"] = md.id;
  d["version"] = md.version;
  d["kernels_minver"] = md.kernels_minver ? py::object(py::str(*md.kernels_minver)) : py::object(py::none());
  d["license"] = md.license;
  d["upstream"] = md.upstream ? py::object(py::str(*md.upstream)) : py::object(py::none());
  d["source"] = md.source ? py::object(py::str(*md.source)) : py::object(py::none());
  d["python_depends"] = md.python_depends;
  py::list deps;
  for (const auto& dep : md.kernel_depends) {
    py::dict e;
    e["repo_id"] = dep.repo_id;
    e["version"] = dep.version ? py::object(py::int_(*dep.version)) : py::object(py::none());
    e["revision"] = dep.revision ? py::object(py::str(*dep.revision)) : py::object(py::none());
    deps.append(e);
  }
  d["kernel_depends"] = deps;
  d["backend"] = std::string(config::to_string(md.backend));
  d["archs"] = md.archs.empty() ? py::object(py::none()) : py::object(py::cast(md.archs));
  if (md.digest) {
    py::dict digest;
    digest["algorithm"] = std::string(metadata::to_string(md.digest->algorithm));
    digest["files"] = md.digest->files;
    d["digest"] = digest;
  } else {
    d["digest"] = py::none();
  }
  if (md.provenance) {
    py::dict p;
    if (md.provenance->kernel_builder) {
      py::dict kb;
      kb["version"] = md.provenance->kernel_builder->version;
      kb["git"] = git_state(md.provenance->kernel_builder->git);
      p["kernel_builder"] = kb;
    } else {
      p["kernel_builder"] = py::none();
    }
    p["kernel"] = git_state(md.provenance->kernel);
    d["provenance"] = p;
  } else {
    d["provenance"] = py::none();
  }
  return d;
}

metadata::DigestAlgorithm algorithm_from(const std::string& name) {
  if (name == "sha256") return metadata::DigestAlgorithm::sha256;
  if (name == "sha512") return metadata::DigestAlgorithm::sha512;
  throw py::value_error("Unknown digest algorithm: " + name);
}

const char* violation_kind_name(metadata::DigestViolation::Kind kind) {
  switch (kind) {
    case metadata::DigestViolation::Kind::algorithm_mismatch: return "AlgorithmMismatch";
    case metadata::DigestViolation::Kind::missing_file: return "MissingFile";
    case metadata::DigestViolation::Kind::hash_mismatch: return "HashMismatch";
    case metadata::DigestViolation::Kind::unknown_file: return "UnknownFile";
  }
  return "";
}

}  // namespace

void bind_metadata(py::module_& m) {
  // The components of a dotted version with trailing zeros dropped (`0.18.0` → [0, 18]), the
  // comparison key of `kernels.Metadata.kernels_minver`; ValueError for anything else.
  m.def(
      "version_components",
      [](const std::string& text) {
        auto parsed = config::Version::parse(text);
        if (!parsed) throw py::value_error(parsed.error().message);
        return parsed->components();
      },
      py::arg("text"));
  m.def("parse_metadata", [](const py::bytes& data) {
    auto parsed = metadata::parse_metadata(std::string(data));
    if (!parsed) throw py::value_error("Cannot parse metadata: " + parsed.error().message);
    return to_dict(*parsed);
  });
  m.def("read_metadata", [](const std::string& path) {
    auto text = util::read_file(path);
    if (!text) {
      PyErr_SetString(PyExc_OSError, ("Failed to open `" + path + "`: " + text.error().message).c_str());
      throw py::error_already_set();
    }
    auto parsed = metadata::parse_metadata(*text);
    if (!parsed) throw py::value_error("Cannot parse metadata from `" + path + "`: " + parsed.error().message);
    return to_dict(*parsed);
  });
  m.def("required_modules", [](const std::string& metadata_path, const std::string& detected_backend) {
    auto md = unwrap(metadata::read_metadata_file(metadata_path));
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& module : unwrap(required_modules(md, detected_backend))) {
      out.emplace_back(module.pkg, module.import_name);
    }
    return out;
  });
  m.def("hash_variant", [](const std::string& algorithm, const std::string& path) {
    auto digest = unwrap(metadata::compute_digest(path, algorithm_from(algorithm)));
    return digest.files;
  });
  m.def("digest_violations",
        [](const std::string& expected_algorithm, const std::map<std::string, std::string>& expected_files,
           const std::string& actual_algorithm, const std::map<std::string, std::string>& actual_files) {
          metadata::Digest expected{algorithm_from(expected_algorithm), expected_files};
          metadata::Digest actual{algorithm_from(actual_algorithm), actual_files};
          return metadata::digest_violations(expected, actual);
        });
  // (kind, path, expected, got, text) of each violation, kind one of "AlgorithmMismatch",
  // "MissingFile", "HashMismatch", "UnknownFile" (`kernels.verify.DigestViolation`'s classes).
  m.def("digest_violation_records",
        [](const std::string& expected_algorithm, const std::map<std::string, std::string>& expected_files,
           const std::string& actual_algorithm, const std::map<std::string, std::string>& actual_files) {
          metadata::Digest expected{algorithm_from(expected_algorithm), expected_files};
          metadata::Digest actual{algorithm_from(actual_algorithm), actual_files};
          std::vector<py::tuple> out;
          for (const auto& v : metadata::find_digest_violations(expected, actual)) {
            out.push_back(py::make_tuple(violation_kind_name(v.kind), v.path, v.expected, v.got, v.to_string()));
          }
          return out;
        });
  // The text of a violation built from its fields (a `DigestViolation` the user constructs).
  m.def(
      "digest_violation_text",
      [](const std::string& kind, const std::string& path, const std::string& expected, const std::string& got) {
        for (auto k : {metadata::DigestViolation::Kind::algorithm_mismatch, metadata::DigestViolation::Kind::missing_file,
                       metadata::DigestViolation::Kind::hash_mismatch, metadata::DigestViolation::Kind::unknown_file}) {
          if (kind == violation_kind_name(k)) return metadata::DigestViolation{k, path, expected, got}.to_string();
        }
        throw py::value_error("Unknown digest violation: " + kind);
      },
      py::arg("kind"), py::arg("path"), py::arg("expected"), py::arg("got"));
  // The algorithm's name as violations show it ("SHA256").
  m.def(
      "digest_algorithm_display_name",
      [](const std::string& algorithm) { return metadata::algorithm_display_name(algorithm_from(algorithm)); },
      py::arg("algorithm"));
  m.def(
      "digest_mismatch_message",
      [](const std::vector<std::string>& violations) { return metadata::digest_mismatch(violations).message; },
      py::arg("violations"));
}

}  // namespace kb::loader::python
