// select_variant: SystemInfo → variant::SystemDescription, then the shared resolution.
#include "loader/selection.h"

#include "util/strings.h"
#include "variant/resolution.h"

namespace kb::loader {
namespace {

std::optional<variant::MajorMinor> version_of(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return variant::MajorMinor::parse_prefix(text);
}

variant::SystemDescription describe(const SystemInfo& info) {
  variant::SystemDescription d;
  if (auto backend = config::parse_backend(info.backend)) d.backend = *backend;
  d.backend_version = version_of(info.backend_version);
  d.cpu = info.cpu;
  d.os = info.os;
  d.torch_version = version_of(info.torch_version);
  d.cxx11 = info.cxx11;
  d.tvm_ffi_version = version_of(info.tvm_ffi_version);
  if (!info.macos_version.empty()) d.macos_version = info.macos_version;
  d.free_threaded = info.free_threaded;
  return d;
}

}  // namespace

std::string Selection::trace() const {
  std::vector<std::string> lines;
  for (const auto& d : decisions) {
    if (!d.accepted) {
      lines.push_back(d.variant + ": " + d.reason);
    } else if (best && *best == d.variant) {
      lines.push_back(d.variant + " compatible, preferred ✅");
    } else {
      lines.push_back(d.variant + " compatible ✅");
    }
  }
  return util::join(lines, "\n");
}

Selection select_variant(const std::vector<std::string>& names, const SystemInfo& system) {
  auto resolution = variant::resolve_variants(names, describe(system));
  Selection out;
  out.best = resolution.best;
  out.invalid = resolution.invalid_names;
  for (const auto& d : resolution.decisions) {
    out.decisions.push_back(Decision{d.name, d.accepted(), d.reason.value_or("")});
  }
  return out;
}

}  // namespace kb::loader
