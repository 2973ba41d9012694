// The in-memory build.toml model (edition 5, docs/build-toml.md). Legacy editions are upgraded
// into this same model by the reader; every later stage (variants, codegen, build, upload,
// metadata) reads only this.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "config/backend.h"
#include "config/version.h"

namespace kb::config {

// docs/build-toml.md. `original` is written verbatim to metadata.json; `normalized` is shown in
// the card (scp-like `user@host:path` -> `ssh://user@host/path`).
struct GitUrl {
  std::string original;
  std::string normalized;
};

// docs/build-toml.md: exactly one of version / revision.
struct KernelDependency {
  std::string repo_id;
  std::optional<int64_t> version;
  std::optional<std::string> revision;
};

struct HubConfig {
  std::optional<std::string> repo_id;
  std::optional<std::string> branch;
};

// [general.cuda] / [general.neuron] / [general.tpu] / [general.xpu]. Only [general.cuda] may
// carry minver/maxver; tpu has no kernel-depends (the reader enforces which keys exist where).
struct GeneralBackendConfig {
  std::optional<Version> minver;
  std::optional<Version> maxver;
  std::vector<KernelDependency> kernel_depends;
  std::vector<std::string> python_depends;
};

struct General {
  std::string name;
  int64_t version = 1;
  int64_t edition = 5;
  std::string license;
  std::optional<GitUrl> upstream;
  std::optional<GitUrl> source;
  std::vector<Backend> backends;  // as written (deduplicated), order irrelevant
  std::vector<std::string> python_depends;
  std::vector<KernelDependency> kernel_depends;
  // `kernels-minver`: raises the oldest `kernels` recorded in metadata.json (see
  // `required_kernels_version`).
  std::optional<Version> kernels_minver;
  std::optional<HubConfig> hub;
  std::optional<GeneralBackendConfig> cuda;
  std::optional<GeneralBackendConfig> neuron;
  std::optional<GeneralBackendConfig> tpu;
  std::optional<GeneralBackendConfig> xpu;

  // `name` with '-' replaced by '_'.
  std::string python_name() const;
};

// [torch].stable-abi: form 1 (one version for every backend) or form 2 (per backend).
struct StableAbi {
  std::optional<Version> all;              // form 1
  std::map<Backend, Version> per_backend;  // form 2
};

struct TorchConfig {
  std::vector<std::string> src;
  std::optional<std::vector<std::string>> include;
  std::optional<Version> minver;
  std::optional<Version> maxver;
  std::optional<std::vector<std::string>> pyext;  // absent: default {"py", "pyi"}
  std::optional<StableAbi> stable_abi;
  std::optional<std::vector<std::string>> cxx_flags;

  // The stable-ABI target version for `backend`, if that backend builds against the stable ABI.
  std::optional<Version> stable_abi_for(Backend backend) const;
};

struct TorchNoarchConfig {
  std::optional<std::vector<std::string>> pyext;
  std::optional<std::vector<std::string>> cuda_capabilities;
  std::optional<std::vector<std::string>> rocm_archs;
};

struct TvmFfiConfig {
  std::vector<std::string> src;
  std::optional<std::vector<std::string>> include;
  std::optional<std::vector<std::string>> pyext;
  std::optional<std::vector<std::string>> cxx_flags;
};

using Framework = std::variant<TorchConfig, TorchNoarchConfig, TvmFfiConfig>;

// [kernel.<name>] (docs/build-toml.md). Backend-specific keys are only set for their backend.
struct KernelUnit {
  std::string name;  // the TOML key
  Backend backend = Backend::cpu;
  std::vector<std::string> depends;
  std::vector<std::string> src;
  std::optional<std::vector<std::string>> include;
  std::optional<std::vector<std::string>> cxx_flags;
  std::optional<std::vector<std::string>> cuda_capabilities;  // cuda
  std::optional<std::vector<std::string>> cuda_flags;         // cuda
  std::optional<Version> cuda_minver;                         // cuda
  std::optional<std::vector<std::string>> rocm_archs;         // rocm
  std::optional<std::vector<std::string>> hip_flags;          // rocm
  std::optional<std::vector<std::string>> sycl_flags;         // xpu
};

struct BuildConfig {
  General general;
  Framework framework;
  std::vector<KernelUnit> kernels;  // in file order

  bool is_torch() const { return std::holds_alternative<TorchConfig>(framework); }
  bool is_torch_noarch() const { return std::holds_alternative<TorchNoarchConfig>(framework); }
  bool is_tvm_ffi() const { return std::holds_alternative<TvmFfiConfig>(framework); }

  bool has_backend(Backend backend) const;
  // A listed backend with at least one [kernel.*] unit, in a [torch] or [tvm-ffi] project.
  bool is_arch_backend(Backend backend) const;
  // Kernel units of `backend` (empty for torch-noarch projects).
  std::vector<const KernelUnit*> units_for(Backend backend) const;
  // The framework's `pyext` extensions other than py and pyi: data files a variant ships beside
  // its Python sources (docs/build-toml.md; the default ["py", "pyi"] ships none).
  std::vector<std::string> data_extensions() const;
};

}  // namespace kb::config
