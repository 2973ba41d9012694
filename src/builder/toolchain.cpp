// Toolchain detection (see toolchain.h).
#include "builder/toolchain.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <regex>

#include <nlohmann/json.hpp>

#include "builder/project_checks.h"
#include "builder/user_cache.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/prelude.h"
#include "util/process.h"
#include "util/strings.h"

namespace kb::builder {

using nlohmann::json;

namespace {

std::optional<std::string> optional_string(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::vector<std::string> string_list(const json& object, const char* key) {
  std::vector<std::string> out;
  auto it = object.find(key);
  if (it == object.end()) return out;
  if (it->is_string()) return {it->get<std::string>()};
  if (!it->is_array()) return out;
  for (const auto& item : *it) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

std::optional<fs::path> resolve_python(const std::string& python) {
  if (python.find('/') != std::string::npos) {
    if (fs::exists(python)) return fs::absolute(python);
    return std::nullopt;
  }
  auto found = util::find_program(python);
  if (!found) return std::nullopt;
  return *found;
}

}  // namespace

variant::MajorMinor Toolchain::torch_major_minor() const {
  return variant::MajorMinor::parse_prefix(torch_version).value_or(variant::MajorMinor{});
}

std::optional<std::string> Toolchain::missing_for(config::Backend backend) const {
  switch (backend) {
    case config::Backend::cpu:
      return std::nullopt;
    case config::Backend::cuda:
      if (!torch_cuda) return "a CUDA build of torch (found torch " + torch_version + ")";
      if (!cuda) return "nvcc (CUDA toolkit; set CUDA_HOME or put nvcc on PATH)";
      return std::nullopt;
    case config::Backend::rocm:
      if (!torch_hip) return "a ROCm build of torch (found torch " + torch_version + ")";
      if (!util::find_program("hipcc")) return "hipcc (ROCm toolkit)";
      return std::nullopt;
    case config::Backend::xpu:
      if (!torch_xpu) return "an XPU build of torch (found torch " + torch_version + ")";
      if (!util::find_program("icpx")) return "icpx (oneAPI DPC++ compiler)";
      return std::nullopt;
    case config::Backend::metal:
      if (system != "Darwin") return "Xcode (Metal kernels build on macOS only)";
      if (!util::find_program("xcrun")) return "Xcode command-line tools (xcrun)";
      return std::nullopt;
    default:
      return "a " + std::string(config::to_string(backend)) + " toolchain (not supported by this builder)";
  }
}

Result<Toolchain> parse_probe_output(const std::string& json_text, const fs::path& python) {
  json root = json::parse(json_text, nullptr, false);
  if (root.is_discarded() || !root.is_object()) {
    return Error(ErrorKind::process, "Cannot read the toolchain probe output of `" + python.string() + "`");
  }
  if (auto error = optional_string(root, "torch_error")) {
    return Error(ErrorKind::config, "Python interpreter `" + python.string() + "` cannot import torch")
        .with_cause(*error)
        .with_hint("install torch into that environment, or pass another interpreter with `--python`");
  }
  Toolchain t;
  t.python = python;
  t.python_version = optional_string(root, "python_version").value_or("");
  t.python_include = optional_string(root, "python_include").value_or("");
  t.machine = optional_string(root, "machine").value_or("");
  t.system = optional_string(root, "system").value_or("");
  t.torch_version = optional_string(root, "torch_version").value_or("");
  t.cxx11_abi = root.value("cxx11_abi", false);
  t.torch_cuda = optional_string(root, "cuda");
  t.torch_hip = optional_string(root, "hip");
  t.torch_xpu = optional_string(root, "xpu");
  auto prefixes = string_list(root, "cmake_prefix_path");
  t.torch_cmake_prefix = prefixes.empty() ? "" : prefixes.front();
  t.torch_dir = optional_string(root, "torch_dir").value_or("");
  t.include_dirs = string_list(root, "include_dirs");
  t.library_dirs = string_list(root, "library_dirs");
  t.nvcc_flags = string_list(root, "nvcc_flags");
  t.tvm_ffi_version = optional_string(root, "tvm_ffi_version");
  t.tvm_ffi_include_dirs = string_list(root, "tvm_ffi_include_dirs");
  t.tvm_ffi_library = optional_string(root, "tvm_ffi_library").value_or("");
  if (!variant::MajorMinor::parse_prefix(t.torch_version)) {
    return Error(ErrorKind::config, "Cannot parse the torch version `" + t.torch_version + "` of `" + python.string() + "`");
  }
  if (t.system == "Linux" && !t.cxx11_abi) {
    return Error(ErrorKind::config, "torch " + t.torch_version + " of `" + python.string() +
                                        "` is not built with the C++11 ABI (torch._C._GLIBCXX_USE_CXX11_ABI is False)")
        .with_hint("kernels are only built for torch with the C++11 ABI; use a recent torch wheel");
  }
  return t;
}

std::optional<variant::MajorMinor> parse_nvcc_version(const std::string& output) {
  static const std::regex release(R"(release (\d+)\.(\d+))");
  std::smatch match;
  if (!std::regex_search(output, match, release)) return std::nullopt;
  return variant::MajorMinor{std::stoull(match[1]), std::stoull(match[2])};
}

std::optional<CudaToolkit> find_cuda_toolkit() {
  std::vector<fs::path> candidates;
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) candidates.push_back(fs::path(home) / "bin" / "nvcc");
  candidates.push_back("/usr/local/cuda/bin/nvcc");
  if (auto on_path = util::find_program("nvcc")) candidates.push_back(*on_path);
  for (const auto& nvcc : candidates) {
    std::error_code ec;
    if (!fs::is_regular_file(nvcc, ec)) continue;
    auto run = util::run_process({nvcc.string(), "--version"});
    if (!run || !run->success()) continue;
    auto version = parse_nvcc_version(run->stdout_text);
    if (!version) continue;
    return CudaToolkit{nvcc, *version, nvcc.parent_path().parent_path()};
  }
  return std::nullopt;
}

namespace {

constexpr int kProbeCacheFormat = 4;
constexpr size_t kMaxProbeEntries = 32;

// Environment variables that change what the interpreter imports (and so what the probe reports).
constexpr const char* kProbeEnvironment[] = {"PYTHONPATH", "PYTHONHOME", "PYTHONNOUSERSITE", "PYTHONUSERBASE",
                                             "PYTHONPLATLIBDIR", "PYTHONSAFEPATH"};

// Files and directories whose stamps (user_cache.h) must be unchanged for a cached probe result
// to hold: the interpreter binary (a new Python), the venv's pyvenv.cfg, torch's version.py (a
// reinstalled torch) and the package directories (a package installed or removed changes them:
// torch upgraded or removed, tvm_ffi added).
std::vector<fs::path> stamped_paths(const fs::path& interpreter, const json& probe) {
  std::error_code ec;
  std::vector<fs::path> out = {fs::canonical(interpreter, ec), interpreter.parent_path().parent_path() / "pyvenv.cfg"};
  if (ec) out.front() = interpreter;
  if (auto torch_dir = optional_string(probe, "torch_dir")) out.push_back(fs::path(*torch_dir) / "version.py");
  for (const auto& dir : string_list(probe, "site_dirs")) out.push_back(dir);
  return out;
}

json stamps_of(const std::vector<fs::path>& paths) {
  json out = json::object();
  for (const auto& path : paths) out[path.string()] = file_stamp(path);
  return out;
}

// The probe output cached for `interpreter`, if the entry is readable, of this format and version of
// the probe script, and every stamp still holds.
std::optional<std::string> cached_probe(const fs::path& cache_file, const std::string& identity,
                                        const fs::path& interpreter) {
  auto text = util::read_file(cache_file);
  if (!text) return std::nullopt;
  json entry = json::parse(*text, nullptr, false);
  if (entry.is_discarded() || !entry.is_object() || entry.value("format_version", 0) != kProbeCacheFormat) {
    return std::nullopt;
  }
  if (entry.value("identity", "") != identity) return std::nullopt;
  auto output = entry.find("probe");
  auto stamps = entry.find("stamps");
  if (output == entry.end() || !output->is_string() || stamps == entry.end() || !stamps->is_object()) return std::nullopt;
  json probe = json::parse(output->get<std::string>(), nullptr, false);
  if (probe.is_discarded() || !probe.is_object()) return std::nullopt;
  if (*stamps != stamps_of(stamped_paths(interpreter, probe))) return std::nullopt;
  return output->get<std::string>();
}

}  // namespace

std::string probe_cache_identity(const fs::path& interpreter) {
  // The path as given, not resolved: a venv's bin/python is a symlink to the base interpreter,
  // and the venv (sys.prefix) is found from the unresolved path.
  std::string identity = "kb-toolchain-probe " + std::to_string(kProbeCacheFormat) + "\n" + interpreter.string() + "\n";
  // A builder with another probe script reports other facts.
  identity += "script " + util::sha256_hex(build_script("probe_toolchain.py")) + "\n";
  for (const char* name : kProbeEnvironment) {
    if (const char* value = std::getenv(name)) identity += std::string(name) + "=" + value + "\n";
  }
  return identity;
}

namespace {

fs::path probe_cache_file(const fs::path& cache_dir, const std::string& identity) {
  return cache_dir.empty() ? fs::path() : cache_dir / ("toolchain-" + util::sha256_hex(identity).substr(0, 24) + ".json");
}

// The probe script's output as a toolchain, with nvcc found when torch is a CUDA build.
Result<Toolchain> toolchain_of(const std::string& probe_output, const fs::path& interpreter) {
  auto toolchain = parse_probe_output(probe_output, interpreter);
  if (toolchain && toolchain->torch_cuda) toolchain->cuda = find_cuda_toolkit();
  return toolchain;
}

// Runs the probe script in `interpreter` (with `args`: `guess`, or none).
Result<util::ProcessResult> run_probe_script(const fs::path& interpreter, std::vector<std::string> args) {
  util::ProcessOptions options;
  options.env = builder_python_env();
  args.insert(args.begin(), {interpreter.string(), "-c", build_script("probe_toolchain.py")});
  return util::run_process(args, options);
}

// The cached probe result of `interpreter` that still holds, if any.
std::optional<Toolchain> cached_toolchain(const fs::path& interpreter, const fs::path& cache_dir) {
  std::string identity = probe_cache_identity(interpreter);
  fs::path cache_file = probe_cache_file(cache_dir, identity);
  if (cache_file.empty()) return std::nullopt;
  auto cached = cached_probe(cache_file, identity, interpreter);
  if (!cached) return std::nullopt;
  auto toolchain = toolchain_of(*cached, interpreter);
  // An entry that no longer parses (e.g. written by another builder) is probed again.
  if (!toolchain) return std::nullopt;
  return std::move(*toolchain);
}

Error python_not_found(const std::string& python) {
  return Error(ErrorKind::not_found, "Python interpreter `" + python + "` not found")
      .with_hint("pass an interpreter with torch installed using `--python <PATH>`");
}

}  // namespace

Result<Toolchain> probe_toolchain(const std::string& python, const fs::path& cache_dir, bool* from_cache) {
  if (from_cache) *from_cache = false;
  auto resolved = resolve_python(python);
  if (!resolved) return python_not_found(python);
  fs::path interpreter = *resolved;
  if (auto cached = cached_toolchain(interpreter, cache_dir)) {
    if (from_cache) *from_cache = true;
    return std::move(*cached);
  }
  std::string identity = probe_cache_identity(interpreter);
  fs::path cache_file = probe_cache_file(cache_dir, identity);
  auto started = fs::file_time_type::clock::now();
  auto run = run_probe_script(interpreter, {});
  if (!run) return std::move(run).error();
  if (!run->success()) {
    return Error(ErrorKind::process, "Cannot probe the Python interpreter `" + interpreter.string() + "`")
        .with_cause(std::string(util::trim(run->stderr_text)));
  }
  auto toolchain = toolchain_of(run->stdout_text, interpreter);
  if (!toolchain) return toolchain;
  json probe = json::parse(run->stdout_text, nullptr, false);
  auto paths = stamped_paths(interpreter, probe);
  // A file changed while the probe ran (a package being installed) may not be in its output: such
  // a result is used once, not kept.
  bool settled = std::none_of(paths.begin(), paths.end(), [&](const fs::path& path) {
    std::error_code ec;
    auto time = fs::last_write_time(path, ec);
    return !ec && time >= started;
  });
  if (!cache_file.empty() && settled) {
    json entry = {{"format_version", kProbeCacheFormat},
                  {"identity", identity},
                  {"stamps", stamps_of(paths)},
                  {"probe", run->stdout_text}};
    // A cache that cannot be written only costs the next build another probe.
    if (util::write_file_atomic(cache_file, entry.dump(1))) prune_oldest_files(cache_dir, ".json", kMaxProbeEntries);
  }
  return toolchain;
}

std::optional<Toolchain> guess_toolchain(const std::string& python) {
  auto interpreter = resolve_python(python);
  if (!interpreter) return std::nullopt;
  auto run = run_probe_script(*interpreter, {"guess"});
  if (!run || !run->success()) return std::nullopt;
  json guess = json::parse(run->stdout_text, nullptr, false);
  if (guess.is_discarded() || !guess.is_object() || guess.contains("no_guess")) return std::nullopt;
  auto toolchain = toolchain_of(run->stdout_text, *interpreter);
  if (!toolchain) return std::nullopt;  // the probe will say what is wrong
  return std::move(*toolchain);
}

std::vector<std::string> toolchain_differences(const Toolchain& a, const Toolchain& b) {
  std::vector<std::string> out;
  auto compare = [&out](const char* name, const auto& x, const auto& y) {
    if (!(x == y)) out.emplace_back(name);
  };
  compare("python", a.python, b.python);
  compare("python_version", a.python_version, b.python_version);
  compare("python_include", a.python_include, b.python_include);
  compare("machine", a.machine, b.machine);
  compare("system", a.system, b.system);
  compare("torch_version", a.torch_version, b.torch_version);
  compare("cxx11_abi", a.cxx11_abi, b.cxx11_abi);
  compare("torch_cuda", a.torch_cuda, b.torch_cuda);
  compare("torch_hip", a.torch_hip, b.torch_hip);
  compare("torch_xpu", a.torch_xpu, b.torch_xpu);
  compare("torch_cmake_prefix", a.torch_cmake_prefix, b.torch_cmake_prefix);
  compare("torch_dir", a.torch_dir, b.torch_dir);
  compare("include_dirs", a.include_dirs, b.include_dirs);
  compare("library_dirs", a.library_dirs, b.library_dirs);
  compare("nvcc_flags", a.nvcc_flags, b.nvcc_flags);
  compare("tvm_ffi_version", a.tvm_ffi_version, b.tvm_ffi_version);
  compare("tvm_ffi_include_dirs", a.tvm_ffi_include_dirs, b.tvm_ffi_include_dirs);
  compare("tvm_ffi_library", a.tvm_ffi_library, b.tvm_ffi_library);
  compare("cuda", a.cuda, b.cuda);
  return out;
}

Result<ToolchainProbes> ToolchainProbes::start(const std::vector<std::string>& pythons, const fs::path& cache_dir) {
  ToolchainProbes out;
  for (const auto& python : pythons) {
    auto interpreter = resolve_python(python);
    if (!interpreter) return python_not_found(python);
    if (auto cached = cached_toolchain(*interpreter, cache_dir)) {
      out.toolchains_.push_back(std::move(*cached));
    } else if (auto guess = guess_toolchain(python)) {
      auto probe = [python, cache_dir] {
        auto started = std::chrono::steady_clock::now();
        auto toolchain = probe_toolchain(python, cache_dir);
        return Probed{std::move(toolchain), std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()};
      };
      out.pending_.push_back({out.toolchains_.size(), python, std::async(std::launch::async, probe), {}, {}});
      out.toolchains_.push_back(std::move(*guess));
    } else {
      auto probed = probe_toolchain(python, cache_dir);
      if (!probed) return std::move(probed).error();
      out.toolchains_.push_back(std::move(*probed));
    }
  }
  return out;
}

ToolchainProbes::ToolchainProbes(ToolchainProbes&&) noexcept = default;
ToolchainProbes& ToolchainProbes::operator=(ToolchainProbes&&) noexcept = default;
// A build that stops early (an error before `settle`) still waits for its probes: they write the
// probe cache, and a future's destructor would wait anyway.
ToolchainProbes::~ToolchainProbes() = default;

void ToolchainProbes::collect(bool wait) {
  for (auto& pending : pending_) {
    if (pending.done) continue;
    if (!wait && pending.probe.wait_for(std::chrono::seconds(0)) != std::future_status::ready) continue;
    pending.done = pending.probe.get();
    if (pending.done->toolchain) {
      pending.differences = toolchain_differences(toolchains_[pending.index], *pending.done->toolchain);
    }
  }
}

bool ToolchainProbes::refuted() {
  std::lock_guard<std::mutex> lock(*mutex_);
  collect(false);
  return std::any_of(pending_.begin(), pending_.end(), [](const Pending& pending) {
    return pending.done && (!pending.done->toolchain || !pending.differences.empty());
  });
}

Result<bool> ToolchainProbes::settle() {
  std::lock_guard<std::mutex> lock(*mutex_);
  if (settled_) return *settled_;
  collect(true);
  probed_ = toolchains_;
  std::vector<std::string> verdicts;
  bool held = true;
  for (auto& pending : pending_) {
    if (!pending.done->toolchain) {
      settled_ = pending.done->toolchain.error();
      return *settled_;
    }
    char took[32];
    std::snprintf(took, sizeof took, "%.1f s", pending.done->seconds);
    verdicts.push_back(pending.python + "'s probe " +
                       (pending.differences.empty() ? "agreed" : "disagreed: " + util::join(pending.differences, ", ")) +
                       " (" + took + ")");
    held = held && pending.differences.empty();
    probed_[pending.index] = *pending.done->toolchain;
  }
  if (!verdicts.empty()) {
    account_ = "toolchain: compiled on what the interpreters' files say while their probes (`import torch`) ran; " +
               util::join(verdicts, "; ");
  }
  settled_ = held;
  return *settled_;
}

std::string ToolchainProbes::account() const {
  std::lock_guard<std::mutex> lock(*mutex_);
  return account_;
}

}  // namespace kb::builder
