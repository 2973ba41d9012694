// Backend spellings (see backend.h).
#include "config/backend.h"

namespace kb::config {

std::string_view to_string(Backend backend) {
  switch (backend) {
    case Backend::cann: return "cann";
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
    case Backend::metal: return "metal";
    case Backend::neuron: return "neuron";
    case Backend::rocm: return "rocm";
    case Backend::tpu: return "tpu";
    case Backend::xpu: return "xpu";
  }
  return "cpu";
}

std::optional<Backend> parse_backend(std::string_view text) {
  for (Backend b : all_backends) {
    if (to_string(b) == text) return b;
  }
  return std::nullopt;
}

std::string_view noarch_name(Backend backend) {
  return backend == Backend::cann ? "npu" : to_string(backend);
}

}  // namespace kb::config
