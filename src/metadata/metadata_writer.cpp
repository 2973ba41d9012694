// Canonical metadata.json serialisation (docs/build-output.md): keys in the spec's table order,
// 2-space indentation, `": "` separators, one array element per line, no trailing newline.
// nlohmann's ordered_json pretty printer produces exactly this shape (same as serde_json's).
#include <nlohmann/json.hpp>

#include "metadata/metadata.h"

namespace kb::metadata {

using ordered_json = nlohmann::ordered_json;

namespace {

ordered_json git_state_json(const GitState& state, ordered_json object = ordered_json::object()) {
  object["commit"] = state.commit;
  object["dirty"] = state.dirty;
  return object;
}

}  // namespace

std::string_view to_string(DigestAlgorithm algorithm) {
  return algorithm == DigestAlgorithm::sha256 ? "sha256" : "sha512";
}

bool Provenance::dirty() const {
  return (kernel && kernel->dirty) || (kernel_builder && kernel_builder->git && kernel_builder->git->dirty);
}

std::string render_metadata(const Metadata& m) {
  ordered_json root = ordered_json::object();
  root["name"] = m.name;
  root["id"] = m.id;
  root["version"] = m.version;
  if (m.kernels_minver) root["kernels-minver"] = *m.kernels_minver;
  root["license"] = m.license;
  if (m.upstream) root["upstream"] = *m.upstream;
  if (m.source) root["source"] = *m.source;
  root["python-depends"] = m.python_depends;
  ordered_json kernel_depends = ordered_json::array();
  for (const auto& dep : m.kernel_depends) {
    ordered_json d = ordered_json::object();
    d["repo-id"] = dep.repo_id;
    if (dep.version) d["version"] = *dep.version;
    if (dep.revision) d["revision"] = *dep.revision;
    kernel_depends.push_back(std::move(d));
  }
  root["kernel-depends"] = std::move(kernel_depends);
  ordered_json backend = ordered_json::object();
  backend["type"] = std::string(config::to_string(m.backend));
  if (!m.archs.empty()) backend["archs"] = m.archs;
  root["backend"] = std::move(backend);
  if (m.digest) {
    ordered_json digest = ordered_json::object();
    digest["algorithm"] = std::string(to_string(m.digest->algorithm));
    ordered_json files = ordered_json::object();
    for (const auto& [path, hash] : m.digest->files) files[path] = hash;  // std::map: sorted
    digest["files"] = std::move(files);
    root["digest"] = std::move(digest);
  }
  if (m.provenance) {
    ordered_json provenance = ordered_json::object();
    if (m.provenance->kernel_builder) {
      ordered_json builder = ordered_json::object();
      builder["version"] = m.provenance->kernel_builder->version;
      if (m.provenance->kernel_builder->git) builder = git_state_json(*m.provenance->kernel_builder->git, builder);
      provenance["kernel-builder"] = std::move(builder);
    }
    if (m.provenance->kernel) provenance["kernel"] = git_state_json(*m.provenance->kernel);
    root["provenance"] = std::move(provenance);
  }
  return root.dump(2);
}

}  // namespace kb::metadata
