// Toolchain detection (see toolchain.h).
#include "build/toolchain.h"

#include <cstdlib>
#include <regex>

#include <nlohmann/json.hpp>

#include "util/embedded.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/process.h"
#include "util/strings.h"

namespace kb_build_scripts {
const std::vector<kb::util::EmbeddedFile>& embedded_files();
}

namespace kb::build {

namespace fs = std::filesystem;
using nlohmann::json;
using util::Error;
using util::ErrorKind;
using util::Result;

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

std::string probe_script() {
  for (const auto& file : kb_build_scripts::embedded_files()) {
    if (file.path == "probe_toolchain.py") return std::string(file.content);
  }
  return {};
}

// Modification time of a file as a number, or -1.
long long mtime(const fs::path& path) {
  std::error_code ec;
  auto time = fs::last_write_time(path, ec);
  if (ec) return -1;
  return static_cast<long long>(time.time_since_epoch().count());
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

Result<Toolchain> probe_toolchain(const std::string& python, const fs::path& cache_dir) {
  auto resolved = resolve_python(python);
  if (!resolved) {
    return Error(ErrorKind::not_found, "Python interpreter `" + python + "` not found")
        .with_hint("pass an interpreter with torch installed using `--python <PATH>`");
  }
  fs::path interpreter = *resolved;
  // Cache key: interpreter path + its mtime; validity also re-checks torch's version.py.
  std::string key = util::sha256_hex(interpreter.string() + "\n" + std::to_string(mtime(interpreter))).substr(0, 16);
  fs::path cache_file = cache_dir.empty() ? fs::path() : cache_dir / ("toolchain-" + key + ".json");
  // Modification times of the interpreter's package directories: installing or removing a
  // package (a new torch in the same venv) changes them.
  auto site_stamps = [](const json& probe) {
    json stamps = json::array();
    for (const auto& dir : string_list(probe, "site_dirs")) stamps.push_back(mtime(dir));
    return stamps;
  };
  std::string output;
  if (!cache_file.empty()) {
    if (auto cached = util::read_file(cache_file)) {
      json entry = json::parse(*cached, nullptr, false);
      if (!entry.is_discarded() && entry.value("format_version", 0) == 3 &&
          entry.value("torch_stamp", -2LL) == mtime(fs::path(entry.value("torch_dir", "")) / "version.py")) {
        json probe = json::parse(entry.value("probe", ""), nullptr, false);
        if (!probe.is_discarded() && entry.value("site_stamps", json()) == site_stamps(probe)) output = entry.value("probe", "");
      }
    }
  }
  if (output.empty()) {
    auto run = util::run_process({interpreter.string(), "-c", probe_script()});
    if (!run) return std::move(run).error();
    if (!run->success()) {
      return Error(ErrorKind::process, "Cannot probe the Python interpreter `" + interpreter.string() + "`")
          .with_cause(std::string(util::trim(run->stderr_text)));
    }
    output = run->stdout_text;
  }
  auto toolchain = parse_probe_output(output, interpreter);
  if (!toolchain) return toolchain;
  if (!cache_file.empty()) {
    json entry = {{"format_version", 3},
                  {"torch_dir", toolchain->torch_dir},
                  {"torch_stamp", mtime(fs::path(toolchain->torch_dir) / "version.py")},
                  {"site_stamps", site_stamps(json::parse(output, nullptr, false))},
                  {"probe", output}};
    (void)util::write_file_atomic(cache_file, entry.dump());
  }
  if (toolchain->torch_cuda) toolchain->cuda = find_cuda_toolkit();
  return toolchain;
}

}  // namespace kb::build
