// Shared by the ci unit tests: the embedded reference matrix and a [torch] project with one
// kernel unit per backend.
#pragma once

#include <vector>

#include "config/model.h"
#include "variant/matrix.h"

namespace kb::ci::test {

inline const variant::Matrix& matrix() {
  static const variant::Matrix m = variant::reference_matrix().value();
  return m;
}

inline config::BuildConfig torch_project(std::vector<config::Backend> backends) {
  config::BuildConfig c;
  c.general.name = "relu";
  c.general.backends = backends;
  c.framework = config::TorchConfig{};
  for (config::Backend b : backends) {
    config::KernelUnit u;
    u.name = "k";
    u.backend = b;
    u.depends = {"torch"};
    c.kernels.push_back(u);
  }
  return c;
}

}  // namespace kb::ci::test
