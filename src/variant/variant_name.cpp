// Parsing and rendering of variant names (docs/variants.md).
#include "variant/variant_name.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "util/strings.h"

namespace kb::variant {

namespace {

using config::Backend;

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::optional<uint64_t> to_number(std::string_view digits) {
  if (digits.empty() || digits.size() > 18) return std::nullopt;
  uint64_t value = 0;
  for (char c : digits) value = value * 10 + static_cast<uint64_t>(c - '0');
  return value;
}

// `(\d+)(\d+)` full match with a greedy first group: the minor is the last digit.
std::optional<MajorMinor> split_greedy(std::string_view digits) {
  if (digits.size() < 2 || !all_digits(digits)) return std::nullopt;
  auto major = to_number(digits.substr(0, digits.size() - 1));
  auto minor = to_number(digits.substr(digits.size() - 1));
  if (!major || !minor) return std::nullopt;
  return MajorMinor{*major, *minor};
}

// `(\d)(\d+)` and the lazy `(\d+?)(\d+)`: both give the major exactly one digit.
std::optional<MajorMinor> split_single_major(std::string_view digits) {
  if (digits.size() < 2 || !all_digits(digits)) return std::nullopt;
  auto major = to_number(digits.substr(0, 1));
  auto minor = to_number(digits.substr(1));
  if (!major || !minor) return std::nullopt;
  return MajorMinor{*major, *minor};
}

std::string flat(const MajorMinor& v) { return std::to_string(v.major) + std::to_string(v.minor); }

// Parses the three-part `<compute>-<cpu>-<os>` tail into `out`.
bool parse_arch_tail(const std::vector<std::string>& parts, size_t first, VariantName& out) {
  if (parts.size() - first != 3) return false;
  auto compute = Compute::parse(parts[first]);
  if (!compute) return false;
  out.compute = *compute;
  out.cpu = parts[first + 1];
  out.os = parts[first + 2];
  return true;
}

}  // namespace

std::string_view to_string(VariantKind kind) {
  switch (kind) {
    case VariantKind::torch_arch: return "torch";
    case VariantKind::stable_abi: return "stable-abi";
    case VariantKind::tvm_ffi: return "tvm-ffi";
    case VariantKind::noarch: return "noarch";
  }
  return "noarch";
}

std::string Compute::to_string() const {
  switch (backend) {
    case Backend::cuda: return "cu" + flat(version.value_or(MajorMinor{}));
    case Backend::rocm: return "rocm" + flat(version.value_or(MajorMinor{}));
    case Backend::xpu: return "xpu" + flat(version.value_or(MajorMinor{}));
    case Backend::cann: return "cann" + flat(version.value_or(MajorMinor{}));
    default: return std::string(config::to_string(backend));
  }
}

std::optional<Compute> Compute::parse(std::string_view text) {
  for (Backend literal : {Backend::cpu, Backend::metal, Backend::neuron, Backend::tpu}) {
    if (text == config::to_string(literal)) return Compute{literal, std::nullopt};
  }
  // Order matters only for readability: no prefix is a prefix of another.
  const std::pair<std::string_view, Backend> versioned[] = {
      {"cu", Backend::cuda}, {"rocm", Backend::rocm}, {"xpu", Backend::xpu}, {"cann", Backend::cann}};
  for (const auto& [prefix, backend] : versioned) {
    if (!util::starts_with(text, prefix)) continue;
    auto version = split_greedy(text.substr(prefix.size()));
    if (!version) return std::nullopt;
    return Compute{backend, version};
  }
  return std::nullopt;
}

std::optional<VariantName> VariantName::parse(std::string_view text) {
  std::vector<std::string> parts = util::split(text, '-');
  if (parts.empty()) return std::nullopt;
  VariantName out;

  if (util::starts_with(text, "torch-stable-abi")) {
    if (parts.size() < 3 || parts[0] != "torch" || parts[1] != "stable" || !util::starts_with(parts[2], "abi")) {
      return std::nullopt;
    }
    auto digits = std::string_view(parts[2]).substr(3);
    if (digits.size() < 2 || !all_digits(digits)) return std::nullopt;
    out.kind = VariantKind::stable_abi;
    out.framework_version = split_single_major(digits);
    if (!out.framework_version || !parse_arch_tail(parts, 3, out)) return std::nullopt;
    return out;
  }

  if (parts[0] == "torch") {
    std::vector<std::string> rest(parts.begin() + 1, parts.end());
    out.kind = VariantKind::noarch;
    out.noarch_backend = util::join(rest, "-");
    // `torch` alone names no backend and could never be accepted.
    if (out.noarch_backend.empty()) return std::nullopt;
    return out;
  }

  if (util::starts_with(parts[0], "torch")) {
    out.kind = VariantKind::torch_arch;
    out.framework_version = split_single_major(std::string_view(parts[0]).substr(5));
    if (!out.framework_version) return std::nullopt;
    size_t first = 1;
    if (parts.size() > 1 && (parts[1] == "cxx11" || parts[1] == "cxx98")) {
      out.abi_tag = parts[1] == "cxx11" ? AbiTag::cxx11 : AbiTag::cxx98;
      first = 2;
    }
    if (!parse_arch_tail(parts, first, out)) return std::nullopt;
    return out;
  }

  if (parts[0] == "tvm" && parts.size() > 1 && util::starts_with(parts[1], "ffi")) {
    out.kind = VariantKind::tvm_ffi;
    out.framework_version = split_single_major(std::string_view(parts[1]).substr(3));
    if (!out.framework_version || !parse_arch_tail(parts, 2, out)) return std::nullopt;
    return out;
  }
  return std::nullopt;
}

std::string VariantName::to_string() const { return framework_string() + "-" + arch_string(); }

std::string VariantName::framework_string() const {
  MajorMinor fv = framework_version.value_or(MajorMinor{});
  switch (kind) {
    case VariantKind::noarch: return "torch";
    case VariantKind::stable_abi: return "torch-stable-abi" + flat(fv);
    case VariantKind::tvm_ffi: return "tvm-ffi" + flat(fv);
    case VariantKind::torch_arch: {
      std::string tag;
      if (abi_tag == AbiTag::cxx11) tag = "-cxx11";
      if (abi_tag == AbiTag::cxx98) tag = "-cxx98";
      return "torch" + flat(fv) + tag;
    }
  }
  return {};
}

std::string VariantName::arch_string() const {
  if (kind == VariantKind::noarch) return noarch_backend;
  return compute.to_string() + "-" + cpu + "-" + os;
}

}  // namespace kb::variant
