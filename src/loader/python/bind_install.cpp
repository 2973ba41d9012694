// Bindings of the Hub-facing loader operations: install, version resolution, variant listing,
// trust and existence checks. Network work runs with the GIL released.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <memory>

#include "common.h"
#include "loader/cache_layout.h"
#include "loader/dependencies.h"
#include "loader/installer.h"

namespace kb::loader::python {
namespace {

std::unique_ptr<HubReader> hub(const std::string& user_agent) {
  return make_http_hub_reader(HubOptions{user_agent});
}

py::dict selection_dict(const Selection& selection) {
  py::list decisions;
  for (const auto& d : selection.decisions) decisions.append(py::make_tuple(d.variant, d.accepted, d.reason));
  py::dict out;
  out["decisions"] = decisions;
  out["best"] = selection.best ? py::object(py::str(*selection.best)) : py::object(py::none());
  out["trace"] = selection.trace();
  out["invalid"] = selection.invalid;
  return out;
}

py::dict install(const std::string& repo_id, const std::string& revision, bool local_files_only,
                 const py::dict& system, bool validate_dependencies, const std::string& detected_backend,
                 const std::string& user_agent, const py::object& probe, const std::map<std::string, std::string>& lock_hashes,
                 const std::string& cache_root) {
  InstallRequest request;
  request.repo_id = repo_id;
  request.revision = revision;
  request.local_files_only = local_files_only;
  request.system = system_from_dict(system);
  request.lock_hashes = lock_hashes;
  if (validate_dependencies) {
    request.validate_dependencies = [&](const metadata::Metadata& metadata, const std::string&) -> util::Status {
      auto modules = required_modules(metadata, detected_backend);
      if (!modules) return std::move(modules).error();
      py::gil_scoped_acquire gil;
      for (const auto& module : *modules) {
        if (!probe(module.import_name).cast<bool>()) {
          return util::Error(util::ErrorKind::permission,  // re-raised as ImportError below
                             "Kernel module `" + python_name(metadata.name) + "` requires Python dependency `" +
                                 module.pkg + "`. Please install with: pip install " + module.pkg);
        }
      }
      return {};
    };
  }
  std::unique_ptr<HubReader> reader = local_files_only ? nullptr : hub(user_agent);
  util::Result<InstallResult> result = util::Error("not run");
  {
    py::gil_scoped_release release;
    Installer installer(cache_root.empty() ? default_cache_root() : std::filesystem::path(cache_root), reader.get());
    result = installer.install(request);
  }
  if (!result && result.error().kind == util::ErrorKind::permission &&
      result.error().message.find("requires Python dependency") != std::string::npos) {
    PyErr_SetString(PyExc_ImportError, result.error().message.c_str());
    throw py::error_already_set();
  }
  auto value = unwrap(std::move(result));
  py::dict out;
  out["variant_path"] = value.variant_path.string();
  out["repo_id"] = value.repo_id;
  out["commit"] = value.commit;
  out["variant"] = value.variant;
  out["warnings"] = value.user_warnings;
  out["from_receipt"] = value.from_receipt;
  return out;
}

py::tuple resolve_version(const std::string& repo_id, int version, bool offline, const std::string& user_agent,
                          const std::string& cache_root) {
  std::unique_ptr<HubReader> reader = offline ? nullptr : hub(user_agent);
  std::optional<std::string> warning;
  util::Result<std::string> commit = util::Error("not run");
  {
    py::gil_scoped_release release;
    Installer installer(cache_root.empty() ? default_cache_root() : std::filesystem::path(cache_root), reader.get());
    commit = installer.resolve_version(repo_id, version, offline, warning);
  }
  auto sha = unwrap(std::move(commit));
  return py::make_tuple(sha, warning ? py::object(py::str(*warning)) : py::object(py::none()));
}

py::dict variants(const std::string& repo_id, const std::string& revision, const py::dict& system,
                  const std::string& user_agent) {
  auto reader = hub(user_agent);
  util::Result<Selection> selection = util::Error("not run");
  auto info = system_from_dict(system);
  {
    py::gil_scoped_release release;
    Installer installer(default_cache_root(), reader.get());
    selection = installer.variants_at(repo_id, revision, info);
  }
  return selection_dict(unwrap(std::move(selection)));
}

}  // namespace

void bind_install(py::module_& m) {
  m.def("install", &install, py::arg("repo_id"), py::arg("revision"), py::arg("local_files_only"),
        py::arg("system"), py::arg("validate_dependencies"), py::arg("detected_backend"), py::arg("user_agent"),
        py::arg("probe"), py::arg("lock_hashes") = std::map<std::string, std::string>{}, py::arg("cache_root") = "");
  m.def("resolve_version", &resolve_version, py::arg("repo_id"), py::arg("version"), py::arg("offline"),
        py::arg("user_agent") = "", py::arg("cache_root") = "");
  m.def("variants", &variants, py::arg("repo_id"), py::arg("revision"), py::arg("system"),
        py::arg("user_agent") = "");
  m.def("select", [](const std::vector<std::string>& names, const py::dict& system) {
    return selection_dict(select_variant(names, system_from_dict(system)));
  });
  m.def("cache_root", [] { return default_cache_root().string(); });
  m.def("trusted_publisher", [](const std::string& org, const std::string& user_agent) {
    auto reader = hub(user_agent);
    util::Result<bool> trusted = util::Error("not run");
    {
      py::gil_scoped_release release;
      trusted = reader->trusted_publisher(org);
    }
    return unwrap(std::move(trusted));
  });
  m.def("file_exists", [](const std::string& repo_id, const std::string& revision, const std::string& path) {
    auto reader = hub("");
    util::Result<FetchedFile> head = util::Error("not run");
    {
      py::gil_scoped_release release;
      head = reader->head(RepoType::kernel, repo_id, revision, path);
    }
    if (head) return true;
    auto code = hub_error_code(head.error());
    if (code == "RepoNotFound" || code == "RevisionNotFound" || code == "EntryNotFound") return false;
    raise(head.error());
  });
  m.def("list_versions", [](const std::string& repo_id) {
    auto reader = hub("");
    auto branches = unwrap(reader->list_branches(RepoType::kernel, repo_id));
    std::vector<std::pair<int, std::string>> out;
    for (const auto& b : branches) {
      if (auto n = parse_version_branch(b.name)) out.emplace_back(*n, b.commit);
    }
    std::sort(out.begin(), out.end());
    return out;
  });
}

}  // namespace kb::loader::python
