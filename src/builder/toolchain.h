// Toolchain detection (docs/cli.md): a Python interpreter with torch plus the backend toolkit
// it needs. Probing runs a small embedded script in the interpreter (scripts/probe_toolchain.py)
// and finds nvcc; results are cached per interpreter in the user cache, so that a clean build
// does not pay for `import torch`, and a build without a cached result compiles on a guess of it
// while the probe runs (`ToolchainProbes`; docs/build-engine.md, "The first build on a machine").
#pragma once

#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config/backend.h"
#include "util/result.h"
#include "variant/major_minor.h"

namespace kb::builder {

struct CudaToolkit {
  std::filesystem::path nvcc;
  variant::MajorMinor version;  // from `nvcc --version` ("release 13.0")
  std::filesystem::path home;   // nvcc's grand-parent directory
  friend bool operator==(const CudaToolkit&, const CudaToolkit&) = default;
};

struct Toolchain {
  std::filesystem::path python;
  std::string python_version;  // "3.11.7"
  std::string python_include;
  std::string machine;         // platform.machine()
  std::string system;          // platform.system()
  std::string torch_version;   // torch.__version__, e.g. "2.11.0+cu130"
  bool cxx11_abi = true;
  std::optional<std::string> torch_cuda;  // torch.version.cuda
  std::optional<std::string> torch_hip;
  std::optional<std::string> torch_xpu;
  std::string torch_cmake_prefix;         // torch.utils.cmake_prefix_path
  std::string torch_dir;
  std::vector<std::string> include_dirs;
  std::vector<std::string> library_dirs;
  std::vector<std::string> nvcc_flags;    // torch's COMMON_NVCC_FLAGS
  std::optional<std::string> tvm_ffi_version;      // tvm_ffi.__version__, if importable
  std::vector<std::string> tvm_ffi_include_dirs;   // its headers and dlpack's (tvm_ffi.config)
  std::string tvm_ffi_library;                     // libtvm_ffi.so
  std::optional<CudaToolkit> cuda;        // found nvcc, if torch is a CUDA build

  variant::MajorMinor torch_major_minor() const;
  // Empty when this toolchain can compile kernels for `backend`; else what is missing, e.g.
  // "nvcc (CUDA toolkit)" or "a ROCm build of torch".
  std::optional<std::string> missing_for(config::Backend backend) const;
};

// Parses the probe script's JSON output (pure; unit-tested). Refuses torch builds without the
// C++11 ABI and interpreters without torch.
util::Result<Toolchain> parse_probe_output(const std::string& json_text, const std::filesystem::path& python);

// `nvcc --version` output -> "13.0".
std::optional<variant::MajorMinor> parse_nvcc_version(const std::string& output);
// nvcc from CUDA_HOME, /usr/local/cuda/bin, then PATH.
std::optional<CudaToolkit> find_cuda_toolkit();

// Probes `python` (a path or a name on PATH). `cache_dir`, when not empty, keeps the probe
// result, one file per interpreter (user_cache.h: `toolchains/`), so that a clean build does not
// pay for `import torch`. The entry's name and its identity are `probe_cache_identity`; it is used
// only while the stamps it recorded still hold: the interpreter binary (realpath), the venv's
// pyvenv.cfg, torch's version.py and the interpreter's package directories (installing, upgrading
// or removing a package changes them). A stale, corrupt or unreadable entry is probed again and
// rewritten. `from_cache` (optional) tells whether the probe was skipped.
util::Result<Toolchain> probe_toolchain(const std::string& python, const std::filesystem::path& cache_dir,
                                        bool* from_cache = nullptr);

// What the probe of `python` is expected to find, read from the interpreter's files without
// importing torch (the probe script's `guess` mode: tens of milliseconds instead of the seconds of
// `import torch`). nullopt when the script cannot tell (no torch, an unusual layout) or fails.
std::optional<Toolchain> guess_toolchain(const std::string& python);

// The names of the fields in which two toolchains differ (pure), e.g. {"torch_version", "nvcc_flags"};
// empty when they are the same.
std::vector<std::string> toolchain_differences(const Toolchain& a, const Toolchain& b);

// The toolchains of a build, available at once (builder.cpp; docs/build-engine.md, "The first build
// on a machine"): an interpreter's cached probe result when there is one; else its probe runs in
// the background while the build goes on with `guess_toolchain`'s answer, and `settle` waits for
// the probes and tells whether every guess was right. An interpreter without a guess is probed
// before `start` returns, as `probe_toolchain` does.
class ToolchainProbes {
 public:
  static util::Result<ToolchainProbes> start(const std::vector<std::string>& pythons,
                                             const std::filesystem::path& cache_dir);
  ToolchainProbes(ToolchainProbes&&) noexcept;
  ToolchainProbes& operator=(ToolchainProbes&&) noexcept;
  ~ToolchainProbes();

  // The probe results, or guesses where a probe still runs.
  const std::vector<Toolchain>& toolchains() const { return toolchains_; }
  bool guessing() const { return !pending_.empty(); }
  // Waits for the probes (thread-safe; the answer is kept): true when every guess equals its probe's
  // result; false, with `probed()` then holding the results, when one does not; a probe's error.
  util::Result<bool> settle();
  // Without waiting: whether a probe has already ended with an error or with another answer than
  // its guess (the build in progress then stops early: util::ProcessOptions::stop).
  bool refuted();
  const std::vector<Toolchain>& probed() const { return probed_; }
  // After `settle`: how the guesses fared, for the build log, e.g. "toolchain: compiled on what the
  // interpreters' files say while their probes (`import torch`) ran; python3's probe agreed (3.1 s)".
  std::string account() const;

 private:
  ToolchainProbes() = default;
  struct Probed {
    util::Result<Toolchain> toolchain;
    double seconds = 0;  // how long the probe ran
  };
  struct Pending {
    size_t index;  // in toolchains_
    std::string python;
    std::future<Probed> probe;
    std::optional<Probed> done;                // the probe's result, once collected
    std::vector<std::string> differences;      // from the guess, once done
  };
  // Collects the probes that have ended (all of them with `wait`); the mutex is held.
  void collect(bool wait);
  std::vector<Toolchain> toolchains_;
  std::vector<Pending> pending_;
  std::unique_ptr<std::mutex> mutex_ = std::make_unique<std::mutex>();
  std::optional<util::Result<bool>> settled_;
  std::vector<Toolchain> probed_;
  std::string account_;
};

// What a cached probe result of `interpreter` (absolute, not resolved) depends on besides the
// stamped files: the interpreter path, the probe script and the environment variables that change
// Python's import path (PYTHONPATH, PYTHONHOME, ...).
std::string probe_cache_identity(const std::filesystem::path& interpreter);

}  // namespace kb::builder
