// The GitHub Actions workflow of a release plan (see github_workflow.h). Written with yaml-cpp's
// emitter, so every value is quoted as YAML needs; the job scripts are literal blocks.
#include "ci/github_workflow.h"

#include <algorithm>
#include <cctype>

#include <yaml-cpp/yaml.h>

#include "hub/protocol/names.h"
#include "util/strings.h"

namespace kb::ci {

using util::Error;
using util::ErrorKind;

namespace {

constexpr const char* kCheckout = "actions/checkout@v4";
constexpr const char* kUploadArtifact = "actions/upload-artifact@v4";
constexpr const char* kDownloadArtifact = "actions/download-artifact@v4";
constexpr const char* kBuilderSource = "kernel-builder-src";
constexpr const char* kKernelCheckout = "kernel";

// Containers start without git: actions/checkout would then fetch a tarball without history,
// and the ops id of a build comes from the git tree.
constexpr const char* kInstallGit = R"SH(if ! command -v git >/dev/null; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends git ca-certificates >/dev/null
fi
)SH";

constexpr const char* kBuildTools = R"SH(kernel-builder-src/scripts/install-deps --demo apt
cmake -S kernel-builder-src -B kb-build -G Ninja -DCMAKE_BUILD_TYPE=Release -DKB_TESTS=OFF
cmake --build kb-build --target kernel-builder
mkdir -p kb-bin && cp kb-build/src/cli/kernel-builder kb-bin/
)SH";

constexpr const char* kInstallToolchain = R"SH(python3 -m venv "$RUNNER_TEMP/toolchain"
pip="$RUNNER_TEMP/toolchain/bin/pip"
if [ -n "$TORCH_INDEX" ]; then "$pip" install -q --index-url "$TORCH_INDEX" "$TORCH"; else "$pip" install -q "$TORCH"; fi
# shellcheck disable=SC2086 # NVCC holds several requirements
if [ -n "$NVCC" ]; then "$pip" install -q $NVCC; fi
)SH";

// One CUDA_HOME from the parts pip installed into the toolchain: nvcc, nvvm and crt (NVCC's
// packages), the runtime headers and libraries (torch's requirements). CUDA 13 wheels share one
// tree (nvidia/cu13); 12.x ones have a tree each (nvidia/cuda_nvcc, nvidia/cuda_runtime, ...).
constexpr const char* kCudaHome = R"SH(if [ -n "$NVCC" ]; then
  site=$("$RUNNER_TEMP/toolchain/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  mkdir -p "$RUNNER_TEMP/cuda"
  for part in "$site"/nvidia/*/; do cp -rsf "$part." "$RUNNER_TEMP/cuda/"; done
  echo "CUDA_HOME=$RUNNER_TEMP/cuda" >> "$GITHUB_ENV"
fi
)SH";

constexpr const char* kBuild = R"SH(args=(--bundle --python "$RUNNER_TEMP/toolchain/bin/python")
for variant in $VARIANTS; do args+=(--variant "$variant"); done
kernel-builder build "$KERNEL_DIR" "${args[@]}"
)SH";

// Keyless signing (sigstore's public instance, this workflow's OIDC identity) of every built
// variant's metadata.json into metadata.json.sigstore, which `kernels verify-signature --signer
// <this workflow>` checks; the digest in metadata.json covers the variant's other files.
constexpr const char* kSign = R"SH(python="$RUNNER_TEMP/toolchain/bin/python"
"$python" -m pip install -q 'sigstore>=4,<5'
for metadata in "$KERNEL_DIR"/build/*/metadata.json; do
  "$python" -m sigstore sign --overwrite --bundle "$metadata.sigstore" "$metadata"
done
)SH";

bool safe_text(const std::string& text, const std::string& extra) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [&](unsigned char c) {
    return std::isalnum(c) || extra.find(static_cast<char>(c)) != std::string::npos;
  });
}

util::Status check_options(const WorkflowOptions& options) {
  if (auto status = hub::protocol::check_repo_id(options.builder_repository); !status) {
    return Error(ErrorKind::usage, "`" + options.builder_repository + "` is not a GitHub repository (OWNER/NAME)")
        .with_hint("--builder-repo names the repository holding kernel-builder's sources, e.g. `acme/kernel-builder`.");
  }
  if (!safe_text(options.builder_ref, "._-/")) {
    return Error(ErrorKind::usage, "`" + options.builder_ref + "` is not a git commit, tag or branch name")
        .with_hint("--builder-ref takes a commit id, tag or branch of the kernel-builder repository.");
  }
  const std::string& path = options.kernel_path;
  if (!safe_text(path, "._-/") || path.starts_with("/") || path.find("..") != std::string::npos) {
    return Error(ErrorKind::usage, "`" + path + "` is not a directory inside the kernel's repository")
        .with_hint("--kernel-path is relative to the repository root, e.g. `.` or `kernels/relu`.");
  }
  return {};
}

std::string kernel_dir(const WorkflowOptions& options) {
  std::string path = options.kernel_path;
  while (path.starts_with("./")) path.erase(0, 2);
  while (path.size() > 1 && path.ends_with("/")) path.pop_back();
  return path.empty() || path == "." ? std::string(kKernelCheckout) : std::string(kKernelCheckout) + "/" + path;
}

void step_name_run(YAML::Emitter& out, const std::string& name, const std::string& script) {
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name;
  out << YAML::Key << "run" << YAML::Value << YAML::Literal << script << YAML::EndMap;
}

void checkout_builder(YAML::Emitter& out, const WorkflowOptions& options) {
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "Check out kernel-builder";
  out << YAML::Key << "uses" << YAML::Value << kCheckout;
  out << YAML::Key << "with" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "repository" << YAML::Value << options.builder_repository;
  out << YAML::Key << "ref" << YAML::Value << options.builder_ref;
  out << YAML::Key << "path" << YAML::Value << kBuilderSource;
  out << YAML::EndMap << YAML::EndMap;
}

void checkout_kernel(YAML::Emitter& out) {
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "Check out the kernel";
  out << YAML::Key << "uses" << YAML::Value << kCheckout;
  out << YAML::Key << "with" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "path" << YAML::Value << kKernelCheckout << YAML::EndMap << YAML::EndMap;
}

// Steps every job of the kernel runs first: git, both checkouts, the packages kernel-builder and
// kernel builds need (scripts/install-deps of the same sources: one list), the built binary.
void common_steps(YAML::Emitter& out, const WorkflowOptions& options, const std::string& artifact_system) {
  step_name_run(out, "Install git", kInstallGit);
  checkout_kernel(out);
  checkout_builder(out, options);
  step_name_run(out, "Install build dependencies", "kernel-builder-src/scripts/install-deps --demo apt\n");
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "Download kernel-builder";
  out << YAML::Key << "uses" << YAML::Value << kDownloadArtifact;
  out << YAML::Key << "with" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << "kernel-builder-" + artifact_system;
  out << YAML::Key << "path" << YAML::Value << "${{ runner.temp }}/kb-bin" << YAML::EndMap << YAML::EndMap;
  step_name_run(out, "Put kernel-builder on PATH",
                "chmod +x \"$RUNNER_TEMP/kb-bin/kernel-builder\"\necho \"$RUNNER_TEMP/kb-bin\" >> \"$GITHUB_PATH\"\n");
}

// One build job over `groups` (all hosted, in the container, or all self-hosted).
void build_job(YAML::Emitter& out, const std::string& id, const std::vector<const PlanGroup*>& groups,
               const WorkflowOptions& options, const std::string& container) {
  out << YAML::Key << id << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << "build ${{ matrix.group }}";
  out << YAML::Key << "needs" << YAML::Value << "kernel-builder";
  out << YAML::Key << "runs-on" << YAML::Value << "${{ fromJSON(matrix.runs-on) }}";
  if (!container.empty()) out << YAML::Key << "container" << YAML::Value << container;
  if (options.sign) {  // the OIDC token that sigstore's keyless signing exchanges for a certificate
    out << YAML::Key << "permissions" << YAML::Value << YAML::BeginMap << YAML::Key << "contents" << YAML::Value
        << "read" << YAML::Key << "id-token" << YAML::Value << "write" << YAML::EndMap;
  }
  out << YAML::Key << "strategy" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "fail-fast" << YAML::Value << false;
  out << YAML::Key << "matrix" << YAML::Value << YAML::BeginMap << YAML::Key << "include" << YAML::Value << YAML::BeginSeq;
  for (const PlanGroup* g : groups) {
    std::string labels = "[";
    for (size_t i = 0; i < g->install.runs_on.size(); ++i) labels += (i ? ", \"" : "\"") + g->install.runs_on[i] + "\"";
    labels += "]";
    out << YAML::BeginMap;
    out << YAML::Key << "group" << YAML::Value << g->id;
    out << YAML::Key << "system" << YAML::Value << g->system;
    out << YAML::Key << "runs-on" << YAML::Value << YAML::SingleQuoted << labels;
    out << YAML::Key << "torch" << YAML::Value << g->install.torch.value_or("");
    out << YAML::Key << "torch-index" << YAML::Value << g->install.torch_index.value_or("");
    out << YAML::Key << "nvcc" << YAML::Value << g->install.nvcc.value_or("");
    out << YAML::Key << "variants" << YAML::Value << util::join(g->variants, " ");
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
  out << YAML::Key << "steps" << YAML::Value << YAML::BeginSeq;
  common_steps(out, options, "${{ matrix.system }}");
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "Install the toolchain (${{ matrix.torch }})";
  out << YAML::Key << "env" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "TORCH" << YAML::Value << "${{ matrix.torch }}";
  out << YAML::Key << "TORCH_INDEX" << YAML::Value << "${{ matrix.torch-index }}";
  out << YAML::Key << "NVCC" << YAML::Value << "${{ matrix.nvcc }}" << YAML::EndMap;
  out << YAML::Key << "run" << YAML::Value << YAML::Literal << kInstallToolchain << YAML::EndMap;
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "Assemble CUDA_HOME";
  out << YAML::Key << "env" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "NVCC" << YAML::Value << "${{ matrix.nvcc }}" << YAML::EndMap;
  out << YAML::Key << "run" << YAML::Value << YAML::Literal << kCudaHome << YAML::EndMap;
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "Build ${{ matrix.variants }}";
  out << YAML::Key << "env" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "KERNEL_DIR" << YAML::Value << kernel_dir(options);
  out << YAML::Key << "VARIANTS" << YAML::Value << "${{ matrix.variants }}";
  out << YAML::Key << "KERNEL_BUILDER_REMOTE_CACHE" << YAML::Value << "${{ secrets.KERNEL_BUILDER_REMOTE_CACHE }}";
  out << YAML::EndMap;
  out << YAML::Key << "run" << YAML::Value << YAML::Literal << kBuild << YAML::EndMap;
  if (options.sign) {
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "Sign metadata.json (sigstore, this workflow's identity)";
    out << YAML::Key << "env" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "KERNEL_DIR" << YAML::Value << kernel_dir(options) << YAML::EndMap;
    out << YAML::Key << "run" << YAML::Value << YAML::Literal << kSign << YAML::EndMap;
  }
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "Upload to the Hub";
  out << YAML::Key << "env" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "KERNEL_DIR" << YAML::Value << kernel_dir(options);
  out << YAML::Key << "HF_TOKEN" << YAML::Value << "${{ secrets.HF_TOKEN }}";
  out << YAML::Key << "HF_ENDPOINT" << YAML::Value << "${{ vars.HF_ENDPOINT }}" << YAML::EndMap;
  out << YAML::Key << "run" << YAML::Value << YAML::Literal << "kernel-builder upload \"$KERNEL_DIR\"\n" << YAML::EndMap;
  out << YAML::EndSeq << YAML::EndMap;
}

}  // namespace

util::Result<std::string> render_github_workflow(const ReleasePlan& plan, const WorkflowOptions& options) {
  KB_TRY(check_options(options));
  KB_TRY_ASSIGN(auto table, toolchain_table());
  std::vector<const PlanGroup*> hosted;
  std::vector<const PlanGroup*> self_hosted;
  std::vector<std::string> systems;  // systems that need a kernel-builder binary
  for (const auto& g : plan.groups) {
    if (!g.system.ends_with("-linux")) {
      return Error(ErrorKind::usage, "No CI recipe for `" + g.system + "` (group `" + g.id + "`)")
          .with_hint("kernel-builder is built and tested on Linux only: plan the Linux systems (`--system x86_64-linux`), "
                     "and build the " + g.system + " variants on such a machine with `kernel-builder build --bundle`.");
    }
    (g.install.self_hosted ? self_hosted : hosted).push_back(&g);
    if (std::find(systems.begin(), systems.end(), g.system) == systems.end()) systems.push_back(g.system);
  }

  YAML::Emitter out;
  out.SetIndent(2);
  out << YAML::Comment("Generated by `" + options.command_line + "`") << YAML::Newline;
  out << YAML::Comment("from build.toml of " + plan.kernel + " (version " + std::to_string(plan.version) +
                       "). Regenerate it after changing build.toml.")
      << YAML::Newline;
  out << YAML::Comment("Secrets: HF_TOKEN (write access to the repository); KERNEL_BUILDER_REMOTE_CACHE (optional:") << YAML::Newline;
  out << YAML::Comment("a shared compile cache, redis://, http:// or file:). Variable: HF_ENDPOINT (optional: another Hub).")
      << YAML::Newline;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << "Release " + plan.kernel + " " + plan.branch;
  out << YAML::Key << "on" << YAML::Value << YAML::BeginMap << YAML::Key << "workflow_dispatch" << YAML::Value
      << YAML::BeginMap << YAML::EndMap << YAML::EndMap;
  out << YAML::Key << "permissions" << YAML::Value << YAML::BeginMap << YAML::Key << "contents" << YAML::Value << "read"
      << YAML::EndMap;
  out << YAML::Key << "defaults" << YAML::Value << YAML::BeginMap << YAML::Key << "run" << YAML::Value << YAML::BeginMap
      << YAML::Key << "shell" << YAML::Value << "bash" << YAML::EndMap << YAML::EndMap;
  out << YAML::Key << "jobs" << YAML::Value << YAML::BeginMap;

  // kernel-builder, built once per system from the pinned sources, in the container the kernel
  // jobs run in (so its shared libraries are there).
  out << YAML::Key << "kernel-builder" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << "kernel-builder (${{ matrix.system }})";
  out << YAML::Key << "runs-on" << YAML::Value << "${{ matrix.runs-on }}";
  out << YAML::Key << "container" << YAML::Value << table->container;
  out << YAML::Key << "strategy" << YAML::Value << YAML::BeginMap << YAML::Key << "matrix" << YAML::Value << YAML::BeginMap
      << YAML::Key << "include" << YAML::Value << YAML::BeginSeq;
  for (const auto& system : systems) {
    auto runner = table->runners.find(system);
    out << YAML::BeginMap << YAML::Key << "system" << YAML::Value << system;
    out << YAML::Key << "runs-on" << YAML::Value << (runner != table->runners.end() ? runner->second : system);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
  out << YAML::Key << "steps" << YAML::Value << YAML::BeginSeq;
  step_name_run(out, "Install git", kInstallGit);
  checkout_builder(out, options);
  step_name_run(out, "Build kernel-builder", kBuildTools);
  out << YAML::BeginMap << YAML::Key << "uses" << YAML::Value << kUploadArtifact;
  out << YAML::Key << "with" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << "kernel-builder-${{ matrix.system }}";
  out << YAML::Key << "path" << YAML::Value << "kb-bin/kernel-builder" << YAML::EndMap << YAML::EndMap;
  out << YAML::EndSeq << YAML::EndMap;

  std::vector<std::string> build_jobs;
  if (!hosted.empty()) {
    build_job(out, "build", hosted, options, table->container);
    build_jobs.push_back("build");
  }
  if (!self_hosted.empty()) {
    // Self-hosted runners bring the toolkit a hosted runner lacks (ROCm, oneAPI, ...) and run the
    // job directly: they must be Debian 12 compatible, where kernel-builder is built.
    build_job(out, "build-self-hosted", self_hosted, options, "");
    build_jobs.push_back("build-self-hosted");
  }

  // The branch must hold every planned variant, whichever job built it.
  out << YAML::Key << "verify" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << "verify " + plan.branch;
  out << YAML::Key << "needs" << YAML::Value << YAML::Flow << build_jobs;
  const std::string& first = systems.front();
  auto runner = table->runners.find(first);
  out << YAML::Key << "runs-on" << YAML::Value << (runner != table->runners.end() ? runner->second : first);
  out << YAML::Key << "container" << YAML::Value << table->container;
  out << YAML::Key << "steps" << YAML::Value << YAML::BeginSeq;
  common_steps(out, options, first);
  std::string verify = "kernel-builder ci verify \"$KERNEL_DIR\"";
  for (const auto& argument : options.verify_arguments) verify += " " + argument;
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "Check that " + plan.branch + " holds every planned variant";
  out << YAML::Key << "env" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "KERNEL_DIR" << YAML::Value << kernel_dir(options);
  out << YAML::Key << "HF_TOKEN" << YAML::Value << "${{ secrets.HF_TOKEN }}";
  out << YAML::Key << "HF_ENDPOINT" << YAML::Value << "${{ vars.HF_ENDPOINT }}" << YAML::EndMap;
  out << YAML::Key << "run" << YAML::Value << YAML::Literal << verify + "\n" << YAML::EndMap;
  out << YAML::EndSeq << YAML::EndMap;

  out << YAML::EndMap << YAML::EndMap;
  if (!out.good()) return Error(ErrorKind::generic, "internal error: workflow emitter: " + out.GetLastError());
  return std::string(out.c_str()) + "\n";
}

}  // namespace kb::ci
