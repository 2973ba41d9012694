// The release plan (see release_plan.h).
#include "ci/release_plan.h"

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "hub/protocol/names.h"
#include "util/embedded.h"
#include "util/strings.h"
#include "variant/variant_name.h"

namespace kb::ci::data {
const std::vector<kb::util::EmbeddedFile>& embedded_files();
}

namespace kb::ci {

using nlohmann::ordered_json;
using util::Error;
using util::ErrorKind;
using util::Result;

namespace {

constexpr int kPlanFormat = 1;

Result<ToolchainTable> parse_table(std::string_view text) {
  auto root = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto bad = [](const std::string& what) {
    return Error(ErrorKind::generic, "internal error: ci-toolchains.json is invalid").with_cause(what);
  };
  if (root.is_discarded() || !root.is_object() || root.value("format_version", 0) != 1) return bad("not a format 1 object");
  ToolchainTable table;
  try {
    table.python = root.at("python").get<std::string>();
    table.container = root.at("container").get<std::string>();
    table.runners = root.at("runners").get<std::map<std::string, std::string>>();
    table.self_hosted = root.at("self_hosted").get<std::map<std::string, std::vector<std::string>>>();
    table.torch_index = root.at("torch_index").get<std::map<std::string, std::string>>();
    table.nvcc = root.at("nvcc").get<std::map<std::string, std::string>>();
  } catch (const nlohmann::json::exception& e) {
    return bad(e.what());
  }
  return table;
}

std::string fill(std::string pattern, const std::string& key, const std::string& value) {
  for (size_t at = pattern.find(key); at != std::string::npos; at = pattern.find(key, at + value.size())) {
    pattern.replace(at, key.size(), value);
  }
  return pattern;
}

std::string without_dots(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), '.'), text.end());
  return text;
}

ToolchainInstall install_for(const ToolchainTable& table, const std::string& system, config::Backend backend,
                             const std::optional<std::string>& torch, const std::optional<std::string>& toolkit) {
  ToolchainInstall install;
  const std::string backend_name(config::to_string(backend));
  if (auto labels = table.self_hosted.find(backend_name); labels != table.self_hosted.end()) {
    install.runs_on = labels->second;
    install.self_hosted = true;
  } else if (auto runner = table.runners.find(system); runner != table.runners.end()) {
    install.runs_on = {runner->second};
  } else {
    install.runs_on = {"self-hosted", system};
    install.self_hosted = true;
  }
  const bool linux_system = system.ends_with("-linux");
  if (linux_system) install.container = table.container;
  if (!torch) return install;
  install.torch = "torch==" + *torch + ".*";
  if (linux_system) {
    if (auto index = table.torch_index.find(backend_name); index != table.torch_index.end()) {
      std::string url = index->second;
      if (toolkit) url = fill(fill(url, "{toolkit_dotted}", *toolkit), "{toolkit}", without_dots(*toolkit));
      install.torch_index = url;
    }
  }
  if (backend == config::Backend::cuda && toolkit) {
    const std::string major = toolkit->substr(0, toolkit->find('.'));
    if (auto nvcc = table.nvcc.find(major); nvcc != table.nvcc.end()) install.nvcc = fill(nvcc->second, "{toolkit}", *toolkit);
  }
  return install;
}

std::string group_id(const std::string& torch, const variant::Compute& compute, const std::string& system) {
  return "torch" + without_dots(torch) + "-" + compute.to_string() + "-" + system;
}

std::string branch_of(const config::BuildConfig& config) {
  if (config.general.hub && config.general.hub->branch) return *config.general.hub->branch;
  return hub::protocol::version_branch(config.general.version);
}

PlanGroup& group_for(ReleasePlan& plan, const std::string& id) {
  auto found = std::find_if(plan.groups.begin(), plan.groups.end(), [&](const PlanGroup& g) { return g.id == id; });
  if (found != plan.groups.end()) return *found;
  plan.groups.push_back(PlanGroup{});
  plan.groups.back().id = id;
  return plan.groups.back();
}

ordered_json optional_text(const std::optional<std::string>& value) {
  return value ? ordered_json(*value) : ordered_json(nullptr);
}

}  // namespace

Result<const ToolchainTable*> toolchain_table() {
  static const Result<ToolchainTable> parsed = [] {
    if (auto table = util::find_embedded(data::embedded_files(), "ci-toolchains.json")) return parse_table(*table);
    return Result<ToolchainTable>(Error("internal error: ci-toolchains.json is not embedded"));
  }();
  if (!parsed) return parsed.error();
  return &*parsed;
}

Result<ReleasePlan> plan_release(const variant::Matrix& matrix, const config::BuildConfig& config,
                                 const PlanOptions& options) {
  KB_TRY_ASSIGN(auto table, toolchain_table());
  KB_TRY_ASSIGN(auto all, variant::project_variants(matrix, config, std::nullopt));

  // The systems of the project's build sets, in matrix order; --system must name one of them.
  std::vector<std::string> known;
  for (const auto& v : all.variants) {
    if (v.build_set && std::find(known.begin(), known.end(), v.build_set->system()) == known.end()) {
      known.push_back(v.build_set->system());
    }
  }
  // A kernel without arch variants (noarch only) runs its one job on any system of the matrix.
  if (known.empty()) {
    for (const auto& set : matrix.build_sets) {
      if (std::find(known.begin(), known.end(), set.system()) == known.end()) known.push_back(set.system());
    }
  }
  for (const auto& wanted : options.systems) {
    if (std::find(known.begin(), known.end(), wanted) == known.end()) {
      return Error(ErrorKind::usage, "`" + wanted + "` is not a system this kernel builds for")
          .with_hint("Systems of this kernel: " + util::join(known, ", ") + ".");
    }
  }
  auto selected = [&](const std::string& system) {
    return options.systems.empty() ||
           std::find(options.systems.begin(), options.systems.end(), system) != options.systems.end();
  };

  ReleasePlan plan;
  plan.kernel = config.general.name;
  plan.version = config.general.version;
  plan.branch = branch_of(config);
  if (config.general.hub) plan.repo_id = config.general.hub->repo_id;
  std::vector<std::string> noarch;
  for (const auto& v : all.variants) {
    if (!v.build_set) {
      noarch.push_back(v.name_text);
      continue;
    }
    if (!v.bundle && !options.all_sets) continue;
    const std::string system = v.build_set->system();
    if (!selected(system)) {
      plan.left_out.push_back(v.name_text);
      continue;
    }
    if (std::find(plan.systems.begin(), plan.systems.end(), system) == plan.systems.end()) plan.systems.push_back(system);
    const std::string torch = v.build_set->torch_major_minor().to_string();
    PlanGroup& group = group_for(plan, group_id(torch, v.name.compute, system));
    if (group.variants.empty()) {
      group.system = system;
      group.backend = v.backend;
      group.torch = torch;
      group.toolkit = v.build_set->toolkit_text();
      group.install = install_for(*table, system, v.backend, group.torch, group.toolkit);
    }
    group.variants.push_back(v.name_text);
  }
  if (!noarch.empty()) {
    // Noarch variants compile nothing: one job on the first planned system (else Linux x86-64).
    PlanGroup group;
    group.id = "noarch";
    group.system = !plan.systems.empty()           ? plan.systems.front()
                   : !options.systems.empty() ? options.systems.front()
                                              : "x86_64-linux";
    group.variants = noarch;
    // Nothing is compiled, but the build's checks import torch: the newest torch of the bundle
    // (a newer non-bundle set may be a nightly that no index serves as a release).
    std::optional<variant::MajorMinor> newest;
    for (const auto& set : matrix.build_sets) {
      if (set.bundle && (!newest || set.torch_major_minor() > *newest)) newest = set.torch_major_minor();
    }
    if (newest) group.torch = newest->to_string();
    group.install = install_for(*table, group.system, config::Backend::cpu, group.torch, std::nullopt);
    if (std::find(plan.systems.begin(), plan.systems.end(), group.system) == plan.systems.end()) {
      plan.systems.push_back(group.system);
    }
    plan.groups.push_back(std::move(group));
  }
  if (plan.groups.empty()) {
    return Error(ErrorKind::config, "Nothing to plan: no variant of this kernel is in the release bundle" +
                                        std::string(options.systems.empty() ? "" : " for the systems given"))
        .with_hint("`kernel-builder list-variants` shows the variants; --all also plans the matrix's non-bundle sets.");
  }
  return plan;
}

util::Status add_toolchain_variant(ReleasePlan& plan, const std::string& variant_name, config::Backend backend) {
  for (const auto& group : plan.groups) {
    if (std::find(group.variants.begin(), group.variants.end(), variant_name) != group.variants.end()) return {};
  }
  auto name = variant::VariantName::parse(variant_name);
  if (!name || !name->is_arch() || !name->framework_version) {
    return Error(ErrorKind::generic, "internal error: `" + variant_name + "` is not an arch variant name");
  }
  KB_TRY_ASSIGN(auto table, toolchain_table());
  const std::string system = name->cpu + "-" + name->os;
  const std::string torch = name->framework_version->to_string();
  const std::string id = group_id(torch, name->compute, system);
  auto found = std::find_if(plan.groups.begin(), plan.groups.end(), [&](const PlanGroup& g) { return g.id == id; });
  if (found == plan.groups.end()) {
    PlanGroup group;
    group.id = id;
    group.system = system;
    group.backend = backend;
    group.torch = torch;
    if (name->compute.version) group.toolkit = name->compute.version->to_string();
    group.install = install_for(*table, system, backend, group.torch, group.toolkit);
    group.in_matrix = false;
    // Before the noarch group, which stays last.
    auto noarch = std::find_if(plan.groups.begin(), plan.groups.end(), [](const PlanGroup& g) { return g.id == "noarch"; });
    found = plan.groups.insert(noarch, std::move(group));
  }
  found->variants.push_back(variant_name);
  if (std::find(plan.systems.begin(), plan.systems.end(), system) == plan.systems.end()) plan.systems.push_back(system);
  return {};
}

std::vector<std::string> planned_variants(const ReleasePlan& plan) {
  std::vector<std::string> out;
  for (const auto& group : plan.groups) out.insert(out.end(), group.variants.begin(), group.variants.end());
  return out;
}

std::string render_plan_json(const ReleasePlan& plan) {
  ordered_json doc;
  doc["format_version"] = kPlanFormat;
  doc["kernel"] = plan.kernel;
  doc["repo_id"] = optional_text(plan.repo_id);
  doc["version"] = plan.version;
  doc["branch"] = plan.branch;
  doc["systems"] = plan.systems;
  ordered_json groups = ordered_json::array();
  for (const auto& g : plan.groups) {
    ordered_json group;
    group["id"] = g.id;
    group["system"] = g.system;
    group["backend"] = g.id == "noarch" ? ordered_json(nullptr) : ordered_json(std::string(config::to_string(g.backend)));
    group["torch"] = optional_text(g.torch);
    group["toolkit"] = optional_text(g.toolkit);
    group["variants"] = g.variants;
    group["in_matrix"] = g.in_matrix;
    ordered_json install;
    install["runs_on"] = g.install.runs_on;
    install["self_hosted"] = g.install.self_hosted;
    install["container"] = optional_text(g.install.container);
    install["torch"] = optional_text(g.install.torch);
    install["torch_index"] = optional_text(g.install.torch_index);
    install["nvcc"] = optional_text(g.install.nvcc);
    group["install"] = install;
    if (g.buildable_here) {
      group["buildable_here"] = *g.buildable_here;
      group["toolchain_here"] = optional_text(g.toolchain_here);
    }
    groups.push_back(group);
  }
  doc["groups"] = groups;
  doc["variants"] = planned_variants(plan);
  doc["left_out"] = plan.left_out;
  return doc.dump(2) + "\n";
}

Result<ReleasePlan> parse_plan_json(const std::string& text) {
  auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto bad = [](const std::string& what) {
    return Error(ErrorKind::config, "Not a release plan: " + what)
        .with_hint("Write one with `kernel-builder ci plan KERNEL_DIR > plan.json`.");
  };
  if (doc.is_discarded() || !doc.is_object()) return bad("not a JSON object");
  if (!doc.contains("format_version") || !doc["format_version"].is_number_integer()) return bad("no integer `format_version`");
  if (doc["format_version"].get<int>() != kPlanFormat) {
    return bad("format_version " + doc["format_version"].dump() + " is not " + std::to_string(kPlanFormat));
  }
  ReleasePlan plan;
  try {
    plan.kernel = doc.at("kernel").get<std::string>();
    if (!doc.at("repo_id").is_null()) plan.repo_id = doc.at("repo_id").get<std::string>();
    plan.version = doc.at("version").get<int64_t>();
    plan.branch = doc.at("branch").get<std::string>();
    plan.systems = doc.at("systems").get<std::vector<std::string>>();
    for (const auto& g : doc.at("groups")) {
      PlanGroup group;
      group.id = g.at("id").get<std::string>();
      group.system = g.at("system").get<std::string>();
      group.variants = g.at("variants").get<std::vector<std::string>>();
      for (const auto& name : group.variants) {
        if (!variant::VariantName::parse(name)) return bad("`" + name + "` is not a variant name");
      }
      if (!g.at("torch").is_null()) group.torch = g.at("torch").get<std::string>();
      if (!g.at("toolkit").is_null()) group.toolkit = g.at("toolkit").get<std::string>();
      if (!g.at("backend").is_null()) {
        auto backend = config::parse_backend(g.at("backend").get<std::string>());
        if (!backend) return bad("group `" + group.id + "` has an unknown backend");
        group.backend = *backend;
      }
      group.in_matrix = g.value("in_matrix", true);
      const auto& install = g.at("install");
      group.install.runs_on = install.at("runs_on").get<std::vector<std::string>>();
      group.install.self_hosted = install.at("self_hosted").get<bool>();
      for (auto [key, field] : {std::pair{"container", &group.install.container}, std::pair{"torch", &group.install.torch},
                                std::pair{"torch_index", &group.install.torch_index}, std::pair{"nvcc", &group.install.nvcc}}) {
        if (!install.at(key).is_null()) *field = install.at(key).get<std::string>();
      }
      if (g.contains("buildable_here")) group.buildable_here = g.at("buildable_here").get<bool>();
      if (g.contains("toolchain_here") && !g.at("toolchain_here").is_null()) {
        group.toolchain_here = g.at("toolchain_here").get<std::string>();
      }
      plan.groups.push_back(std::move(group));
    }
    plan.left_out = doc.value("left_out", std::vector<std::string>{});
  } catch (const nlohmann::json::exception& e) {
    return bad(e.what());
  }
  if (plan.groups.empty()) return bad("it has no groups");
  return plan;
}

}  // namespace kb::ci
