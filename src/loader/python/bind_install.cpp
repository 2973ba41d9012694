// Bindings of the Hub-facing loader operations: install, version resolution, variant listing,
// trust and existence checks. Network work runs with the GIL released.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <memory>
#include <tuple>

#include "common.h"
#include "hub/protocol/error_codes.h"
#include "hub/protocol/names.h"
#include "loader/cache_layout.h"
#include "loader/dependencies.h"
#include "loader/installer.h"
#include "loader/local_kernel.h"
#include "loader/versions.h"
#include "util/fs.h"
#include "variant/variant_name.h"

namespace kb::loader::python {

std::unique_ptr<HubReader> hub(const std::string& user_agent) {
  return make_http_hub_reader(HubOptions{user_agent});
}

// The code of the error a missing Python dependency gives; `install` raises it as ImportError.
constexpr const char* kMissingPythonDependency = "MissingPythonDependency";

// The one text of a missing Python dependency (install's check and get_local_kernel's, via _core).
std::string missing_python_dependency(const std::string& kernel_name, const std::string& pkg) {
  return "Kernel module `" + python_name(kernel_name) + "` requires Python dependency `" + pkg +
         "`. Please install with: pip install " + pkg;
}

DependencyCheck python_dependency_check(const std::string& detected_backend, const py::object& probe) {
  // `probe` outlives the binding call that uses the check; held by address so that copying the
  // check (with the GIL released) never touches a Python reference count.
  const py::object* probe_ref = &probe;
  return [detected_backend, probe_ref](const metadata::Metadata& metadata, const std::string&) -> util::Status {
    KB_TRY_ASSIGN(auto modules, required_modules(metadata, detected_backend));
    py::gil_scoped_acquire gil;
    for (const auto& module : modules) {
      if (!(*probe_ref)(module.import_name).cast<bool>()) {
        util::Error error(util::ErrorKind::permission, missing_python_dependency(metadata.name, module.pkg));
        error.code = kMissingPythonDependency;  // re-raised as ImportError by `install`
        return error;
      }
    }
    return {};
  };
}

namespace {

py::dict selection_dict(const Selection& selection) {
  py::list decisions;
  for (const auto& d : selection.decisions) decisions.append(py::make_tuple(d.variant, d.accepted, d.reason));
  py::dict out;
  out["decisions"] = decisions;
  out["best"] = selection.best ? py::object(py::str(*selection.best)) : py::object(py::none());
  out["trace"] = selection.trace();
  out["invalid"] = selection.invalid;
  out["fallback_from"] = selection.fallback_from ? py::object(py::str(selection.fallback_from->backend)) : py::object(py::none());
  return out;
}

// selection_dict plus `error`, the "no variant" message (with its trace and hints) when nothing
// fits, and `fallback_warning` when the CPU fallback chose.
py::dict listing_dict(const VariantListing& listing, const std::string& kernel, const VariantSource& source,
                      const SystemInfo& system) {
  py::dict out = selection_dict(listing.selection);
  out["fallback_warning"] = fallback_warning(kernel, listing.selection);
  out["error"] = listing.selection.best
                     ? py::object(py::none())
                     : py::object(py::str(error_text(no_variant_error(source, listing.names, listing.selection, system))));
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
  if (validate_dependencies) request.validate_dependencies = python_dependency_check(detected_backend, probe);
  std::unique_ptr<HubReader> reader = local_files_only ? nullptr : hub(user_agent);
  util::Result<InstallResult> result = util::Error("not run");
  {
    py::gil_scoped_release release;
    Installer installer(cache_root.empty() ? default_cache_root() : std::filesystem::path(cache_root), reader.get());
    result = installer.install(request);
  }
  if (!result && result.error().code == kMissingPythonDependency) {
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
  out["invalid_variants"] = value.invalid_variants;
  out["fallback_warning"] = value.fallback_warning;
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
  util::Result<VariantListing> listing = util::Error("not run");
  auto info = system_from_dict(system);
  {
    py::gil_scoped_release release;
    Installer installer(default_cache_root(), reader.get());
    listing = installer.variants_at(repo_id, revision, info);
  }
  return listing_dict(unwrap(std::move(listing)), repo_id, VariantSource{repo_id + " (revision: " + revision + ")", false}, info);
}

}  // namespace

void bind_install(py::module_& m) {
  m.def("missing_python_dependency", &missing_python_dependency, py::arg("kernel_name"), py::arg("pkg"));
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
  // The trace text of decisions (variant, accepted, reason) in the given order, the first accepted
  // one preferred (`kernels.variants.variants_trace_str`).
  m.def(
      "trace_text",
      [](const std::vector<std::tuple<std::string, bool, std::string>>& decisions) {
        Selection selection;
        for (const auto& [variant, accepted, reason] : decisions) {
          selection.decisions.push_back(Decision{variant, accepted, reason});
          if (accepted && !selection.best) selection.best = variant;
        }
        return selection.trace();
      },
      py::arg("decisions"));
  m.def("find_local_variant", [](const std::string& repo_path, const py::dict& system) {
    auto choice = unwrap(find_local_variant(repo_path, system_from_dict(system)));
    py::dict out;
    out["variant_path"] = choice.variant_path.string();
    out["fallback_warning"] = choice.fallback_warning;
    return out;
  });
  m.def("local_variants", [](const std::string& repo_path, const py::dict& system) {
    auto info = system_from_dict(system);
    auto local = list_local_variants(repo_path, info);
    py::dict out = listing_dict(VariantListing{local.names, local.selection}, repo_path,
                               VariantSource{repo_path, true}, info);
    out["base"] = local.base.string();
    return out;
  });
  m.def("cache_root", [] { return default_cache_root().string(); });
  // The Hub's repo-id rules (ValueError naming the id), for the facade's own uses of an id.
  m.def("check_repo_id", [](const std::string& repo_id) { unwrap(hub::protocol::check_repo_id(repo_id)); });
  m.def("trusted_publisher", [](const std::string& org, const std::string& user_agent) {
    auto reader = hub(user_agent);
    util::Result<bool> trusted = util::Error("not run");
    {
      py::gil_scoped_release release;
      trusted = reader->trusted_publisher(org);
    }
    return unwrap(std::move(trusted));
  });
  m.def("file_exists", [](const std::string& repo_id, const std::string& revision, const std::string& path,
                          const std::string& user_agent) {
    auto reader = hub(user_agent);
    util::Result<FetchedFile> head = util::Error("not run");
    {
      py::gil_scoped_release release;
      head = reader->head(RepoType::kernel, repo_id, revision, path);
    }
    if (head) return true;
    const std::string& code = head.error().code;
    namespace error_code = hub::protocol::error_code;
    if (code == error_code::kRepoNotFound || code == error_code::kRevisionNotFound || code == error_code::kEntryNotFound) {
      return false;
    }
    raise(head.error());
  }, py::arg("repo_id"), py::arg("revision"), py::arg("path"), py::arg("user_agent") = "");
  m.def("install_all", [](const std::string& repo_id, const std::string& revision, const std::string& cache_root,
                          const std::string& user_agent) {
    auto reader = hub(user_agent);
    util::Result<std::vector<std::filesystem::path>> dirs = util::Error("not run");
    {
      py::gil_scoped_release release;
      Installer installer(cache_root.empty() ? default_cache_root() : std::filesystem::path(cache_root), reader.get());
      dirs = installer.install_all_variants(repo_id, revision);
    }
    std::vector<std::string> out;
    for (const auto& dir : unwrap(std::move(dirs))) out.push_back(dir.string());
    return out;
  }, py::arg("repo_id"), py::arg("revision"), py::arg("cache_root") = "", py::arg("user_agent") = "");
  m.def("build_listing", [](const std::string& repo_id, const std::string& revision, const std::string& user_agent) {
    auto reader = hub(user_agent);
    util::Result<std::vector<TreeEntry>> listed = util::Error("not run");
    {
      py::gil_scoped_release release;  // a Python thread may be what answers (a test Hub)
      listed = reader->list_tree(RepoType::kernel, repo_id, revision, "build", false);
    }
    auto tree = unwrap(std::move(listed));
    std::vector<std::string> names;
    for (const auto& entry : tree) {
      if (!entry.is_directory) continue;
      auto slash = entry.path.rfind('/');
      names.push_back(slash == std::string::npos ? entry.path : entry.path.substr(slash + 1));
    }
    return names;
  }, py::arg("repo_id"), py::arg("revision"), py::arg("user_agent") = "");
  m.def("download_bytes", [](const std::string& repo_id, const std::string& revision, const std::string& path,
                             const std::string& user_agent) {
    auto reader = hub(user_agent);
    util::TempDir tmp("kb-file");
    util::Result<FetchedFile> fetched = util::Error("not run");
    {
      py::gil_scoped_release release;
      fetched = reader->download(RepoType::kernel, repo_id, revision, path, tmp.path() / "file");
    }
    unwrap(std::move(fetched));
    return py::bytes(unwrap(util::read_file(tmp.path() / "file")));
  }, py::arg("repo_id"), py::arg("revision"), py::arg("path"), py::arg("user_agent") = "");
  m.def("variant_backend", [](const std::string& name) -> py::object {
    auto parsed = variant::VariantName::parse(name);
    if (!parsed) return py::none();
    if (parsed->is_arch()) return py::str(std::string(config::to_string(parsed->compute.backend)));
    if (parsed->is_universal()) return py::none();
    return py::str(parsed->noarch_backend == "npu" ? std::string("cann") : parsed->noarch_backend);
  });
  m.def("list_versions", [](const std::string& repo_id, const std::string& user_agent) {
    auto reader = hub(user_agent);
    util::Result<std::vector<Branch>> branches = util::Error("not run");
    {
      py::gil_scoped_release release;
      branches = reader->list_branches(RepoType::kernel, repo_id);
    }
    return version_branches(unwrap(std::move(branches)));
  }, py::arg("repo_id"), py::arg("user_agent") = "");
  m.def("version_branch", &hub::protocol::version_branch, py::arg("version"));
  m.def(
      "version_not_found",
      [](int version, const std::vector<std::pair<int, std::string>>& versions) {
        return version_not_found(version, versions).message;
      },
      py::arg("version"), py::arg("versions"));
}

}  // namespace kb::loader::python
