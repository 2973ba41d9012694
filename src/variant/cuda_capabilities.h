// CUDA capability selection (docs/variants.md): the default list per nvcc version, the "loose
// intersection" of a unit's `cuda-capabilities` with it, and the nvcc -gencode flags for a list.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/version.h"
#include "util/result.h"

namespace kb::variant {

// CUDA_DEFAULT_KERNEL_ARCHS for toolkit `nvcc` (with the trailing `+PTX` entry).
std::vector<std::string> default_cuda_capabilities(const config::Version& nvcc);

// Capabilities toolkit `nvcc` compiles for that the default list leaves out (built only when a
// unit asks for them in `cuda-capabilities`): 10.3 and 12.1 from nvcc 12.9.
std::vector<std::string> cuda_extra_capabilities(const config::Version& nvcc);

// The target list T: the default list without `+PTX` plus the extra capabilities, naturally sorted.
std::vector<std::string> cuda_target_capabilities(const config::Version& nvcc);

// Natural ordering of capability strings: digit runs compare numerically ("9.0" < "9.0a" < "10.0").
bool natural_less(std::string_view a, std::string_view b);

// Loose intersection of `requested` (a unit's cuda-capabilities) with `targets` (T). Errors with
// `CUDA kernel: <unit>, empty set of capabilities after intersection (kernel: <R>, supported: <T>)`.
util::Result<std::vector<std::string>> intersect_cuda_capabilities(std::string_view unit,
                                                                   const std::vector<std::string>& requested,
                                                                   const std::vector<std::string>& targets);

// Capabilities a unit is compiled for with toolkit `nvcc`: the full default list when the unit
// requests none, else the loose intersection with the target list.
util::Result<std::vector<std::string>> unit_cuda_capabilities(std::string_view unit,
                                                              const std::optional<std::vector<std::string>>& requested,
                                                              const config::Version& nvcc);

// Whether nvcc `nvcc`'s --split-compile leaves the device code of every one of `capabilities` the
// same from run to run (docs/build-engine.md, "nvcc's own parallelism"). Measured with nvcc 13.0:
// below capability 10.0 the PTX was the same in every run (7.5, 8.0, 8.6, 8.9, 9.0, 9.0a); from 10.0
// on (10.0, 10.3, 11.0, 12.0, 12.1) its parallel optimiser gives one of several texts. Other toolkit
// majors were not measured: false. A capability that does not parse: false.
bool split_compile_reproducible(const config::Version& nvcc, const std::vector<std::string>& capabilities);

// nvcc arguments for `capabilities`: per entry `-gencode arch=compute_XY,code=sm_XY` (as two argv
// tokens), plus `-gencode arch=compute_XY,code=compute_XY` for `+PTX` entries. `9.0a` -> `90a`.
// Errors for entries that are not `<major>.<minor>[a|f][+PTX]`.
util::Result<std::vector<std::string>> cuda_gencode_flags(const std::vector<std::string>& capabilities);

}  // namespace kb::variant
