// The variant table of a repository page (see variant_table.h).
#include "hub/web/variant_table.h"

#include <map>
#include <optional>
#include <set>

#include "config/backend.h"
#include "metadata/digest.h"
#include "util/hash.h"
#include "variant/variant_name.h"

namespace kb::hub::web {

namespace {

constexpr std::string_view kBuildDir = "build/";

std::string backend_label(config::Backend backend) {
  switch (backend) {
    case config::Backend::cann:
      return "CANN";
    case config::Backend::cpu:
      return "CPU";
    case config::Backend::cuda:
      return "CUDA";
    case config::Backend::metal:
      return "Metal";
    case config::Backend::neuron:
      return "Neuron";
    case config::Backend::rocm:
      return "ROCm";
    case config::Backend::tpu:
      return "TPU";
    case config::Backend::xpu:
      return "XPU";
  }
  return std::string(config::to_string(backend));
}

std::string raw_from_hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

bool is_hex(const std::string& text) {
  return !text.empty() && text.size() % 2 == 0 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// What the name of a variant directory says.
void describe_name(VariantRow& row) {
  auto name = variant::VariantName::parse(row.name);
  if (!name) {
    row.kind = "unknown";
    return;
  }
  row.kind = std::string(variant::to_string(name->kind));
  if (!name->is_arch()) {
    row.framework = "any";
    row.platform = "any";
    row.compute = name->noarch_backend;
    if (auto backend = config::parse_backend(name->noarch_backend))
      row.backend = std::string(config::to_string(*backend));
    return;
  }
  std::string version = name->framework_version ? name->framework_version->to_string() : "";
  switch (name->kind) {
    case variant::VariantKind::torch_arch:
      row.framework = "Torch " + version;
      break;
    case variant::VariantKind::stable_abi:
      row.framework = "Torch stable ABI " + version;
      break;
    case variant::VariantKind::tvm_ffi:
      row.framework = "TVM-FFI " + version;
      break;
    case variant::VariantKind::noarch:
      break;
  }
  row.compute = backend_label(name->compute.backend);
  if (name->compute.version) row.compute += " " + name->compute.version->to_string();
  row.backend = std::string(config::to_string(name->compute.backend));
  row.platform = name->cpu + "-" + name->os;
}

// Checks the stored files of one variant against its metadata.json.
void check_metadata(VariantRow& row, const std::vector<const RepoFile*>& files, const VariantSources& sources) {
  const std::string prefix = std::string(kBuildDir) + row.name + "/";
  const RepoFile* metadata_file = nullptr;
  for (const RepoFile* file : files) {
    if (file->path == prefix + "metadata.json") metadata_file = file;
  }
  if (!metadata_file) {
    row.digest = DigestStatus::no_metadata;
    return;
  }
  auto text = sources.read(*metadata_file);
  auto parsed = text ? metadata::parse_metadata(*text) : util::Result<metadata::Metadata>(text.error());
  if (!parsed) {
    row.digest = DigestStatus::invalid;
    row.detail = parsed.error().message;
    return;
  }
  row.backend = std::string(config::to_string(parsed->backend));
  row.archs = parsed->archs;
  if (!parsed->digest) {
    row.digest = DigestStatus::no_digest;
    return;
  }
  metadata::Digest actual{parsed->digest->algorithm, {}};
  for (const RepoFile* file : files) {
    std::string relative = file->path.substr(prefix.size());
    if (metadata::excluded_from_digest(relative)) continue;
    if (actual.algorithm == metadata::DigestAlgorithm::sha256 && is_hex(file->sha256)) {
      actual.files[relative] = util::base64_encode(raw_from_hex(file->sha256));
      continue;
    }
    auto raw = sources.hash(*file, actual.algorithm);
    if (!raw) {
      row.digest = DigestStatus::invalid;
      row.detail = raw.error().message;
      return;
    }
    actual.files[relative] = util::base64_encode(*raw);
  }
  auto violations = metadata::digest_violations(*parsed->digest, actual);
  row.digest = violations.empty() ? DigestStatus::verified : DigestStatus::mismatch;
  if (!violations.empty()) row.detail = violations.front();
}

}  // namespace

std::string_view to_string(DigestStatus status) {
  switch (status) {
    case DigestStatus::verified:
      return "verified";
    case DigestStatus::mismatch:
      return "mismatch";
    case DigestStatus::no_digest:
      return "no digest";
    case DigestStatus::no_metadata:
      return "no metadata.json";
    case DigestStatus::invalid:
      return "invalid";
  }
  return "";
}

namespace {

// "torch-cpu" for "build/torch-cpu/_ops.py"; nothing for a path outside build/ or a file directly in it.
std::optional<std::string> variant_of(const std::string& path) {
  if (path.rfind(kBuildDir, 0) != 0) return std::nullopt;
  size_t slash = path.find('/', kBuildDir.size());
  if (slash == std::string::npos) return std::nullopt;
  return path.substr(kBuildDir.size(), slash - kBuildDir.size());
}

}  // namespace

std::vector<std::string> variant_names(const std::vector<std::string>& paths) {
  std::set<std::string> names;
  for (const auto& path : paths) {
    if (auto name = variant_of(path)) names.insert(*name);
  }
  return {names.begin(), names.end()};
}

std::vector<VariantRow> variant_rows(const std::vector<RepoFile>& files, const VariantSources& sources) {
  std::map<std::string, std::vector<const RepoFile*>> by_variant;
  for (const auto& file : files) {
    if (auto name = variant_of(file.path)) by_variant[*name].push_back(&file);
  }
  std::vector<VariantRow> rows;
  for (const auto& [name, variant_files] : by_variant) {
    VariantRow row;
    row.name = name;
    row.files = variant_files.size();
    for (const RepoFile* file : variant_files) row.size += file->size;
    describe_name(row);
    check_metadata(row, variant_files, sources);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace kb::hub::web
