// The architecture check of variant choice: whether the architectures a variant declares
// (metadata.json `backend.archs`) cover the device, and the walk that skips a variant that does
// not for the next-best one that does — reading only the candidates' small metadata.json.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loader/selection.h"
#include "metadata/metadata.h"
#include "util/result.h"

namespace kb::loader {

// Whether code built for the CUDA arch `arch` runs on compute capability major.minor: `M.m` on the
// same major with minor >= m, `M.ma` (architecture-specific) only on M.m, `M.mf` (family) on the
// same major with minor >= m, a `+PTX` entry on any capability >= M.m (JIT-compiled). nullopt when
// `arch` is not of that form.
std::optional<bool> cuda_arch_runs_on(std::string_view arch, int major, int minor);

// Whether `archs` cover `device_arch`, the check for `backend`: CUDA — some entry runs on the
// capability ("8.0"); an unparsable device capability, or no entry that parses (a newer builder's
// format), passes. ROCm — the gfx name (feature flags after `:` ignored) is listed. Empty `archs`,
// an empty device arch and other backends pass.
bool archs_cover_device(config::Backend backend, const std::vector<std::string>& archs,
                        const std::string& device_arch);

// The metadata of a candidate variant (by directory name), read or fetched by the caller.
using CandidateMetadata = std::function<util::Result<metadata::Metadata>(const std::string& variant)>;

// Makes `selection.best` the first of `selection.candidates` that runs on `system.device_arch`,
// reading candidates' metadata in order until one does; the ones before it become rejected
// decisions (their archs in the reason) and `selection.arch_skipped`. Nothing is read when the
// device arch is unknown or when the selection is a CPU fallback. Errors: a candidate's metadata
// could not be read.
util::Status apply_arch_check(Selection& selection, const SystemInfo& system, const CandidateMetadata& metadata_of);

// The error when every candidate was skipped (kind generic: RuntimeError in Python): the kernel,
// each variant and its archs, the device's architecture, and `check_arch=False` as the way past.
util::Error arch_error(const std::string& kernel, const Selection& selection, const SystemInfo& system);

}  // namespace kb::loader
