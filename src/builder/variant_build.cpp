// One variant build (see variant_build.h), following its plan (variant_plan.h).
#include "builder/variant_build.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <thread>

#include <nlohmann/json.hpp>

#include "abi/check.h"
#include "builder/build_log.h"
#include "builder/compile_step.h"
#include "builder/project_checks.h"
#include "builder/reproducible.h"
#include "builder/run_guard.h"
#include "builder/staging.h"
#include "builder/toolchain.h"
#include "builder/user_cache.h"
#include "builder/variant_plan.h"
#include "codegen/ops_py.h"
#include "config/kernels_minver.h"
#include "config/python_registry.h"
#include "metadata/digest.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/prelude.h"
#include "util/process.h"
#include "util/strings.h"

namespace kb::builder {

using config::Backend;

namespace {

// Hash of (path, size, mtime) of every project file outside build outputs and dot-directories:
// cheap enough for every no-op build, and any edit changes it.
std::string input_fingerprint(const fs::path& project) {
  util::Hasher hasher(util::HashAlgorithm::sha256);
  std::vector<std::string> entries;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(project, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (it->is_directory(ec)) {
      bool top_output = it.depth() == 0 && (name == "build" || name == "result");
      if (top_output || util::starts_with(name, ".") || name == "__pycache__") it.disable_recursion_pending();
      continue;
    }
    std::error_code stat_error;
    auto size = fs::file_size(it->path(), stat_error);
    auto time = fs::last_write_time(it->path(), stat_error);
    entries.push_back(it->path().lexically_relative(project).generic_string() + "\t" + std::to_string(size) + "\t" +
                      std::to_string(time.time_since_epoch().count()));
  }
  std::sort(entries.begin(), entries.end());
  for (const auto& e : entries) hasher.update(e + "\n");
  return util::to_hex(hasher.finish());
}

Result<metadata::Metadata> base_metadata(const BuildSettings& s, Backend backend, const std::string& ops_id) {
  const auto& general = s.config->general;
  metadata::Metadata m;
  m.name = general.name;
  m.id = ops_id;
  m.version = general.version;
  m.license = general.license;
  if (general.upstream) m.upstream = general.upstream->original;
  if (general.source) m.source = general.source->original;
  auto deps = config::resolve_python_depends(*s.config, backend, config::PythonRegistry::embedded());
  if (!deps) return std::move(deps).error();
  for (const auto* dep : *deps) m.python_depends.push_back(dep->name);
  for (const auto& dep : config::kernel_depends_for(*s.config, backend)) {
    m.kernel_depends.push_back({dep.repo_id, dep.version, dep.revision});
  }
  m.backend = backend;
  m.provenance = s.provenance;
  if (auto minver = config::required_kernels_version(*s.config, backend)) {
    m.kernels_minver = config::kernels_version_text(*minver);
  }
  return m;
}

// The manylinux policy a Linux variant targets: --manylinux, else the policy of torch's wheels.
std::string target_policy(const BuildSettings& s, const PlannedVariant& v) {
  if (s.manylinux) return *s.manylinux;
  if (v.toolchain) {
    return abi::default_policy_for_torch(v.toolchain->torch_major_minor().to_string());
  }
  return abi::CheckOptions{}.manylinux;
}

// Removes every `__pycache__` directory and `*.pyc` file under `root` (docs/building.md).
void remove_python_caches(const fs::path& root) {
  std::vector<fs::path> doomed;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name == "__pycache__" || util::ends_with(name, ".pyc")) {
      doomed.push_back(it->path());
      it.disable_recursion_pending();
    }
  }
  for (const auto& path : doomed) fs::remove_all(path, ec);
}

// The import check's interpreter, started when the variant starts compiling
// (import_check.py --wait): it imports torch, most of the check's time, beside the compiler, then
// waits for the staged variant on its stdin. Dropped without `finish` (the variant failed before
// it was staged), it reads end of file and exits.
class EarlyImportCheck {
 public:
  explicit EarlyImportCheck(const fs::path& python) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return;
    read_fd_ = fds[0];
    write_fd_ = fds[1];
    thread_ = std::thread([this, python] {
      util::ProcessOptions options;
      options.env = builder_python_env();
      options.merge_stderr = true;
      options.stdin_fd = read_fd_;
      result_ = util::run_process({python.string(), "-c", build_script("import_check.py"), "--wait"}, options);
    });
  }
  EarlyImportCheck(const EarlyImportCheck&) = delete;
  EarlyImportCheck& operator=(const EarlyImportCheck&) = delete;
  ~EarlyImportCheck() {
    close_input();
    if (thread_.joinable()) thread_.join();
    if (read_fd_ >= 0) ::close(read_fd_);
  }

  bool started() const { return thread_.joinable(); }

  // Hands over the staged variant and waits for the check's outcome.
  Result<util::ProcessResult> finish(const fs::path& staging, const std::string& ops_id, const std::string& modules) {
    std::string line = staging.string() + "\t" + ops_id + "\t" + modules + "\n";
    // An interpreter that already exited (e.g. torch failed to import) must not kill the builder
    // with SIGPIPE: the signal is blocked in this thread and a pending one is consumed.
    sigset_t pipe_signal, previous;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
    ssize_t written = ::write(write_fd_, line.data(), line.size());
    if (written < 0 && errno == EPIPE) {
      struct timespec zero {};
      ::sigtimedwait(&pipe_signal, nullptr, &zero);
    }
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    close_input();
    thread_.join();
    if (!result_) return Error(ErrorKind::process, "The import check did not run");
    return std::move(*result_);
  }

 private:
  void close_input() {
    if (write_fd_ >= 0) ::close(write_fd_);
    write_fd_ = -1;
  }

  int read_fd_ = -1;
  int write_fd_ = -1;
  std::thread thread_;
  std::optional<Result<util::ProcessResult>> result_;
};

// The packages that the variant's python-depends install, for the import check: each with the
// module it provides (registry entries without one are not probed).
std::vector<config::PythonPackage> probed_python_packages(const BuildSettings& s, Backend backend) {
  std::vector<config::PythonPackage> out;
  auto deps = config::resolve_python_depends(*s.config, backend, config::PythonRegistry::embedded());
  if (!deps) return out;  // reported by base_metadata
  for (const auto* dep : *deps) {
    for (const auto& package : dep->python) {
      if (package.import_name) out.push_back(package);
    }
  }
  return out;
}

// The failure of an import check that found python-depends packages missing for the toolchain's
// interpreter (import_check.py's report {"missing": [<module>...]}).
Error missing_packages_error(const PlannedVariant& v, const std::vector<config::PythonPackage>& packages,
                             const nlohmann::json& missing) {
  const std::string python = v.toolchain->python.string();
  Error error(ErrorKind::process, "Variant `" + v.name + "` cannot be import-checked: the Python packages of its "
                                  "python-depends are not installed for " + python);
  std::vector<std::string> pip;
  for (const auto& module : missing) {
    if (!module.is_string()) continue;
    for (const auto& package : packages) {
      if (package.import_name != module.get<std::string>()) continue;
      error.causes.push_back("`" + package.pkg + "` (module `" + *package.import_name + "`) is not installed");
      if (std::find(pip.begin(), pip.end(), package.pkg) == pip.end()) pip.push_back(package.pkg);
    }
  }
  error.hints.push_back("install them for that interpreter: " + python + " -m pip install " + util::join(pip, " "));
  error.hints.push_back("or build without the import check: --no-import-check");
  return error;
}

util::Status import_check(const BuildSettings& s, const PlannedVariant& v, const fs::path& staging, const std::string& ops_id,
                    const fs::path& log_path, EarlyImportCheck* early) {
  if (s.reporter) s.reporter->stage(v.name, Stage::check);
  const auto packages = probed_python_packages(s, v.backend);
  std::vector<std::string> module_names;
  for (const auto& package : packages) module_names.push_back(*package.import_name);
  const std::string modules = util::join(module_names, ",");
  Result<util::ProcessResult> run = Error(ErrorKind::process, "");
  if (early && early->started()) {
    run = early->finish(staging, ops_id, modules);
    if (run) {
      std::ofstream log(log_path, std::ios::app | std::ios::binary);
      log << "$ " << v.toolchain->python.string() << " -c <import_check.py> --wait (started with the compile) < "
          << staging.string() << " " << ops_id << " " << modules << "\n" << run->stdout_text;
      if (s.stream_logs && s.reporter) s.reporter->log(v.name, run->stdout_text);
    }
  } else {
    run = run_logged(s, v.name, {v.toolchain->python.string(), "-c", build_script("import_check.py"),
                                 staging.string(), ops_id, modules}, log_path, builder_python_env());
  }
  if (!run) return std::move(run).error();
  if (!run->success()) {
    auto lines = util::split(std::string(util::trim(run->stdout_text)), '\n');
    // import_check.py's status 3: a module is not installed, and its last line is a JSON report.
    constexpr int kMissingModule = 3;
    nlohmann::json report;
    if (run->exit_code == kMissingModule && !lines.empty()) {
      report = nlohmann::json::parse(lines.back(), nullptr, /*allow_exceptions=*/false);
    }
    if (report.is_object()) {
      if (report.contains("missing") && report["missing"].is_array()) {
        return missing_packages_error(v, packages, report["missing"]);
      }
      lines.pop_back();
    }
    Error error(ErrorKind::process, "Variant `" + v.name + "` fails to import");
    size_t from = lines.size() > 6 ? lines.size() - 6 : 0;
    for (size_t i = from; i < lines.size(); ++i) error.causes.push_back(lines[i]);
    if (report.is_object() && report.contains("undeclared") && report["undeclared"].is_string()) {
      error.hints.push_back("the variant imports `" + report["undeclared"].get<std::string>() +
                            "`, which is not installed for " + v.toolchain->python.string() +
                            ": install the package that provides it there, and declare it in build.toml's "
                            "`python-depends` so that loaders check for it before importing the kernel");
    } else {
      error.hints.push_back("kernels that need a GPU at import time can be built with `--no-import-check`");
    }
    error.hints.push_back("full log: " + log_path.string());
    return error;
  }
  return {};
}

// docs/building.md: check-abi on the staged native files (docs/abi-check.md), with the
// stable-ABI target for stable-ABI variants and macOS 26.0 for Metal. Python- and Torch-ABI
// violations fail the variant; manylinux ones only with strict_manylinux (see BuildSettings).
util::Status abi_check(const BuildSettings& s, const PlannedVariant& v, const fs::path& staging) {
  abi::CheckOptions options;
  options.manylinux = target_policy(s, v);
  if (v.stable_abi) options.torch_stable_abi = std::to_string(v.stable_abi->major()) + "." + std::to_string(v.stable_abi->minor());
  if (v.backend == Backend::metal) options.macos = "26.0";
  std::vector<std::string> portability;
  std::vector<std::string> breaking;
  for (const auto& file : abi::native_files(staging)) {
    auto report = abi::check_file(file, options);
    if (!report) return std::move(report).error();
    std::string name = file.filename().string();
    for (const auto& violation : report->violations) {
      switch (violation.kind) {
        case abi::ViolationKind::manylinux:
        case abi::ViolationKind::library:
        case abi::ViolationKind::run_path:
          portability.push_back(abi::describe(violation));
          break;
        case abi::ViolationKind::macos_missing:
          breaking.push_back(name + ": no minimum macOS version");
          break;
        case abi::ViolationKind::macos_newer:
          breaking.push_back(name + ": requires macOS " + violation.symbol + ", newer than " + options.macos);
          break;
        case abi::ViolationKind::python_newer:
          breaking.push_back(name + ": " + violation.symbol + " is in Python's stable ABI only from " + violation.detail);
          break;
        case abi::ViolationKind::python_not_abi3:
          breaking.push_back(name + ": " + violation.symbol + " is not in Python's stable ABI (abi3)");
          break;
        case abi::ViolationKind::torch_unstable:
          breaking.push_back(name + ": not in Torch's stable ABI " + *options.torch_stable_abi + ": " + violation.symbol +
                             (violation.detail.empty() ? "" : " (from torch " + violation.detail + ")"));
          break;
      }
    }
  }
  auto with_details = [&](Error error, const std::vector<std::string>& lines) {
    for (size_t i = 0; i < lines.size() && i < 8; ++i) error.causes.push_back(lines[i]);
    if (lines.size() > 8) error.causes.push_back("... and " + std::to_string(lines.size() - 8) + " more");
    return std::move(error).with_hint("`kernel-builder check-abi` prints the full report of built variants");
  };
  if (!breaking.empty()) return with_details(Error(ErrorKind::config, "Variant `" + v.name + "` fails the ABI check"), breaking);
  if (portability.empty()) return {};
  std::string summary = "is not within " + options.manylinux + " (" + util::join(portability, ", ") +
                        "): it loads here, but not on every " + options.manylinux +
                        " system; release builds (--bundle) fail on this";
  if (s.strict_manylinux) {
    auto error = with_details(Error(ErrorKind::config, "Variant `" + v.name + "` is not " + options.manylinux + "-compatible"),
                              portability);
    if (!s.portable) error.hints.push_back("portable linking was turned off (--no-portable)");
    return std::move(error).with_hint(
        "symbols that glibc/libstdc++ added after " + options.manylinux +
        " cannot be used by a release build: avoid them, or choose a newer policy with --manylinux");
  }
  if (s.reporter) s.reporter->note(v.name + ": " + summary);
  return {};
}

}  // namespace

fs::path output_dir(const BuildSettings& settings) { return settings.project / "build"; }

fs::path work_dir(const BuildSettings& settings, const std::string& variant) {
  return output_dir(settings) / ".kb" / variant;
}

namespace {

// Fills the staging directory (the package's files, the module, `_ops.py`), checks it, completes
// `meta` (archs, digest) into its metadata.json and replaces build/<variant> with it. A failure
// removes the staging directory.
util::Status stage_variant(const BuildSettings& s, const PlannedVariant& v, const VariantPlan& plan,
                           metadata::Metadata* meta, const std::optional<ArchOutput>& arch, EarlyImportCheck* early_check) {
  const auto& config = *s.config;
  const std::string& python_name = plan.python_name;
  const std::string& ops_id = plan.ops_id;
  const fs::path& staging = plan.staging;
  std::error_code ec;
  if (s.reporter) s.reporter->stage(v.name, Stage::stage);
  fs::remove_all(staging, ec);
  fs::create_directories(staging, ec);
  auto fail = [&](Error error) -> util::Status {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    return error;
  };
  fs::path package = plan.package;
  if (auto copied = copy_package_files(package, staging, config.data_extensions(), v.flavour == Flavour::noarch); !copied) {
    return fail(std::move(copied).error());
  }
  Result<std::string> ops_py = std::string();
  if (v.flavour == Flavour::noarch) {
    ops_py = codegen::render_ops_py_noarch(python_name, s.unique_id);
    if (auto* noarch = std::get_if<config::TorchNoarchConfig>(&config.framework)) {
      if (v.backend == Backend::cuda && noarch->cuda_capabilities) meta->archs = *noarch->cuda_capabilities;
      if (v.backend == Backend::rocm && noarch->rocm_archs) meta->archs = *noarch->rocm_archs;
    }
  } else {
    ops_py = v.flavour == Flavour::tvm_ffi ? codegen::render_ops_py_tvm_ffi(ops_id, arch->library.filename().string())
                                           : codegen::render_ops_py_torch(ops_id);
    meta->archs = arch->archs;
    fs::copy_file(arch->library, staging / arch->library.filename(), fs::copy_options::overwrite_existing, ec);
    if (ec) return fail(Error(ErrorKind::io, "Cannot copy `" + arch->library.string() + "`").with_cause(ec.message()));
  }
  if (!ops_py) return fail(std::move(ops_py).error());
  if (auto written = util::write_file_atomic(staging / "_ops.py", *ops_py); !written) {
    return fail(std::move(written).error());
  }

  if (plan.import_check == ImportCheck::run) {
    auto checked = import_check(s, v, staging, ops_id, plan.log_path, early_check);
    if (!checked) return fail(std::move(checked).error());
  } else if (plan.import_check_note && s.reporter) {
    s.reporter->note(*plan.import_check_note);
  }
  if (plan.abi_check) {
    if (auto checked = abi_check(s, v, staging); !checked) return fail(std::move(checked).error());
  }
  remove_python_caches(staging);
  auto digest = metadata::compute_digest(staging);
  if (!digest) return fail(std::move(digest).error());
  meta->digest = *digest;
  if (auto written = util::write_file_atomic(staging / "metadata.json", metadata::render_metadata(*meta)); !written) {
    return fail(std::move(written).error());
  }
  make_writable(staging);
  if (auto replaced = replace_directory(staging, plan.target); !replaced) return fail(std::move(replaced).error());
  return {};
}

}  // namespace

namespace {

Result<VariantOutcome> build_planned_variant(const BuildSettings& s, const PlannedVariant& v, const VariantPlan& plan) {
  std::error_code ec;
  fs::create_directories(plan.work, ec);
  { std::ofstream truncate(plan.log_path, std::ios::trunc); }
  if (s.reporter) s.reporter->stage(v.name, Stage::generate);

  auto meta = base_metadata(s, v.backend, plan.ops_id);
  if (!meta) return std::move(meta).error();
  std::string stamp_input =
      variant_stamp_input(s, v, plan, metadata::render_metadata(*meta), input_fingerprint(s.project));
  auto up_to_date = [&](const std::string& input) {
    auto previous = util::read_file(plan.stamp_file);
    return previous && *previous == util::sha256_hex(input) && fs::exists(plan.target / "metadata.json");
  };
  std::optional<EarlyImportCheck> early_check;
  auto start_early_check = [&] {
    if (plan.early_import_check) early_check.emplace(v.toolchain->python);
  };
  std::optional<ArchOutput> arch;
  if (plan.compile) {
    auto compiled = compile_arch(s, v, plan.ops_id, plan.work, plan.log_path, stamp_input, up_to_date, start_early_check);
    if (!compiled) return std::move(compiled).error();
    arch = std::move(*compiled);
  }
  if (s.toolchain_probes) {
    auto held = s.toolchain_probes->settle();
    if (!held) return std::move(held).error();
    append_log(plan.log_path, s.toolchain_probes->account());
    if (!*held) return VariantOutcome{VariantResult::toolchain_refuted, {}};
  }
  std::string stamp = util::sha256_hex(stamp_input);
  if ((arch && arch->up_to_date) || (!arch && up_to_date(stamp_input))) {
    if (s.reporter) s.reporter->stage(v.name, Stage::up_to_date);
    return VariantOutcome{VariantResult::up_to_date, {}};
  }
  KB_TRY(stage_variant(s, v, plan, &*meta, arch, early_check ? &*early_check : nullptr));
  (void)util::write_file_atomic(plan.stamp_file, stamp);
  if (s.reporter) s.reporter->stage(v.name, Stage::done);
  return VariantOutcome{VariantResult::built, arch ? std::move(arch->compile_times) : std::vector<SourceTime>{}};
}

}  // namespace

Result<VariantOutcome> build_variant(const BuildSettings& s, const PlannedVariant& v) {
  VariantPlan plan = plan_variant(s, v);
  auto result = build_planned_variant(s, v, plan);
  if (!result) {
    // Whatever step failed (a compile, or writing a stamp or the configure arguments), a full disk
    // is the likely cause when the work directory's disk is (nearly) full.
    Error error = std::move(result).error();
    if (auto disk = low_disk_space_hint(plan.work)) error.hints.push_back(*disk);
    return error;
  }
  return result;
}

}  // namespace kb::builder
