// Derived facts of the build.toml model (see model.h).
#include "config/model.h"

#include <algorithm>

namespace kb::config {

std::string General::python_name() const {
  std::string out = name;
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

std::optional<Version> TorchConfig::stable_abi_for(Backend backend) const {
  if (!stable_abi) return std::nullopt;
  if (stable_abi->all) return stable_abi->all;
  auto it = stable_abi->per_backend.find(backend);
  if (it == stable_abi->per_backend.end()) return std::nullopt;
  return it->second;
}

bool BuildConfig::has_backend(Backend backend) const {
  return std::find(general.backends.begin(), general.backends.end(), backend) != general.backends.end();
}

bool BuildConfig::is_arch_backend(Backend backend) const {
  if (is_torch_noarch() || !has_backend(backend)) return false;
  return std::any_of(kernels.begin(), kernels.end(), [&](const KernelUnit& k) { return k.backend == backend; });
}

std::vector<const KernelUnit*> BuildConfig::units_for(Backend backend) const {
  std::vector<const KernelUnit*> out;
  if (is_torch_noarch()) return out;
  for (const auto& k : kernels) {
    if (k.backend == backend) out.push_back(&k);
  }
  return out;
}

std::vector<std::string> BuildConfig::data_extensions() const {
  const std::optional<std::vector<std::string>>* pyext = nullptr;
  if (auto* torch = std::get_if<TorchConfig>(&framework)) pyext = &torch->pyext;
  if (auto* noarch = std::get_if<TorchNoarchConfig>(&framework)) pyext = &noarch->pyext;
  if (auto* tvm = std::get_if<TvmFfiConfig>(&framework)) pyext = &tvm->pyext;
  std::vector<std::string> out;
  if (pyext == nullptr || !pyext->has_value()) return out;
  for (const auto& ext : **pyext) {
    if (ext != "py" && ext != "pyi") out.push_back(ext);
  }
  return out;
}

}  // namespace kb::config
