// The closed set of backends (spellings are a wire format: build.toml, metadata.json, ops ids).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace kb::config {

enum class Backend { cann, cpu, cuda, metal, neuron, rocm, tpu, xpu };

inline constexpr std::array<Backend, 8> all_backends = {
    Backend::cann, Backend::cpu, Backend::cuda, Backend::metal,
    Backend::neuron, Backend::rocm, Backend::tpu, Backend::xpu};

std::string_view to_string(Backend backend);
std::optional<Backend> parse_backend(std::string_view text);  // exact, lower-case only

// Name of the noarch variant / loader backend: `npu` for cann, else the backend name.
std::string_view noarch_name(Backend backend);

}  // namespace kb::config
