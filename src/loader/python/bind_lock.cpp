// Bindings for kernels.lock: reading (load_kernel, get_locked_kernel, kernels download) and writing
// (kernels lock, through kernels.locking). An entry is a dict: repo_id, sha, variants, and version
// or revision for a structured entry.
#include <pybind11/stl.h>

#include "common.h"
#include "loader/lockfile.h"

namespace kb::loader::python {
namespace {

py::dict lock_dict(const KernelLock& lock) {
  py::dict variants;
  for (const auto& [name, v] : lock.variants) {
    py::dict entry;
    entry["hash"] = v.hash;
    entry["hash_type"] = v.hash_type;
    variants[py::str(name)] = entry;
  }
  py::dict out;
  out["repo_id"] = lock.repo_id;
  out["sha"] = lock.sha;
  out["variants"] = variants;
  if (lock.version) out["version"] = *lock.version;
  if (lock.revision) out["revision"] = *lock.revision;
  return out;
}

KernelLock lock_from_dict(const py::dict& d) {
  KernelLock lock;
  lock.repo_id = d["repo_id"].cast<std::string>();
  lock.sha = d["sha"].cast<std::string>();
  if (d.contains("variants")) {
    for (const auto& [name, v] : d["variants"].cast<py::dict>()) {
      auto entry = v.cast<py::dict>();
      lock.variants[name.cast<std::string>()] =
          VariantLock{entry["hash"].cast<std::string>(), entry["hash_type"].cast<std::string>()};
    }
  }
  if (d.contains("version") && !d["version"].is_none()) lock.version = d["version"].cast<long long>();
  if (d.contains("revision") && !d["revision"].is_none()) lock.revision = d["revision"].cast<std::string>();
  return lock;
}

}  // namespace

void bind_lock(py::module_& m) {
  m.def("parse_lockfile", [](const std::string& text) {
    py::list out;
    for (const auto& lock : unwrap(parse_lockfile(text))) out.append(lock_dict(lock));
    return out;
  });
  m.def("render_lockfile", [](const py::list& locks) {
    std::vector<KernelLock> values;
    for (const auto& item : locks) values.push_back(lock_from_dict(item.cast<py::dict>()));
    return render_lockfile(values);
  });
  m.def("variant_lock_hashes", [](const std::vector<std::pair<std::string, std::string>>& files) {
    std::vector<TreeFile> tree;
    for (const auto& [path, hash] : files) tree.push_back(TreeFile{path, hash});
    std::map<std::string, std::string> out;
    for (const auto& [name, v] : compute_variant_locks(tree)) out[name] = v.hash;
    return out;
  });
}

}  // namespace kb::loader::python
