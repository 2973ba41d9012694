// The environments of `kernel-builder devshell` and `testshell` (docs/cli.md): one build set's
// toolchain on PATH (its interpreter's bin directory, CUDA_HOME/bin), and for testshell the
// built variant importable (by its package name, and its directory on PYTHONPATH). Pure
// planning: the CLI applies the result and execs the shell.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "builder/builder.h"
#include "config/model.h"
#include "util/result.h"

namespace kb::builder {

struct ShellEnvironment {
  std::string variant;   // the build set's arch name (the `--variant` key)
  std::string built;     // testshell: the variant directory name under build/ it imports
  // testshell: a symbolic link `link` -> `target` (the built variant directory) that the CLI
  // creates before starting the shell. The link is named after the kernel's Python package and
  // its directory comes first on PYTHONPATH, so `import <python_name>` (the tests of upstream's
  // kernels: `from rmsnorm.layers import RMSNorm`) finds the built variant.
  struct Link {
    std::filesystem::path link;
    std::filesystem::path target;
  };
  std::optional<Link> package;
  std::filesystem::path python;
  std::map<std::string, std::string> set;
  std::vector<std::string> unset;
};

// Keys: the arch names the configured toolchains give (for noarch projects, the Torch arch name
// of each toolchain's backend). Default: CUDA < ROCm < XPU < Metal < CPU, then the newest Torch,
// then the oldest toolkit; for `test_shell`, the first in that order that is built. Unknown
// `variant` -> "Unknown variant `<V>`.\nValid variants for this architecture are: <list>".
// `test_shell`: the variant must be built (build/<v>/metadata.json); its directories go before
// the inherited PYTHONPATH.
util::Result<ShellEnvironment> shell_environment(const config::BuildConfig& config, const std::filesystem::path& project,
                                                 const std::vector<Toolchain>& toolchains,
                                                 const std::optional<std::string>& variant, bool test_shell);

}  // namespace kb::builder
