// Loader acceptance (docs/variants.md): whether one parsed variant can run on the system, with
// the exact reason text when it cannot (values printed like Python: `2.10`, `True`, `None`).
#pragma once

#include <optional>
#include <string>

#include "variant/system.h"
#include "variant/variant_name.h"

namespace kb::variant {

inline constexpr const char* free_threaded_warning =
    "Arch kernels use the stable ABI, which is not supported on free-threaded Python before version 3.15. "
    "Arch kernels will not be used. Consider using a non-free-threaded interpreter, or upgrade to Python 3.15+.";

// nullopt when accepted, else the rejection reason. Rules are applied in the documented order;
// the first failing rule gives the reason.
std::optional<std::string> rejection_reason(const VariantName& variant, const SystemDescription& system);

}  // namespace kb::variant
