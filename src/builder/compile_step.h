// The compile of one arch variant, performed: gathers what its plan needs from the machine
// (CompileFacts: header dependencies, the sources that use the header cache, the portable link
// stubs, ccache, the environment), plans it (compile_plan.h), and runs the plan — writes the
// generated project, configures with CMake when the configure command changed, prepares the
// torch header cache, runs Ninja and reports ccache's statistics.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "builder/compile_times.h"
#include "builder/plan.h"
#include "builder/variant_build.h"
#include "util/result.h"

namespace kb::builder {

struct ArchOutput {
  std::vector<std::string> archs;  // recorded in metadata.json
  std::filesystem::path library;   // the built module
  bool up_to_date = false;         // the stamp matched: nothing was run
  std::vector<SourceTime> compile_times;  // the sources compiled, slowest first
};

// `stamp_input` gets the plan's part of the variant stamp; `up_to_date(stamp input)` says whether
// the last successful build had it (then nothing runs); `on_compile` is called once, when the
// first compile starts.
util::Result<ArchOutput> compile_arch(const BuildSettings& settings, const PlannedVariant& variant,
                                      const std::string& ops_id, const std::filesystem::path& work,
                                      const std::filesystem::path& log_path, std::string& stamp_input,
                                      const std::function<bool(const std::string&)>& up_to_date,
                                      const std::function<void()>& on_compile);

}  // namespace kb::builder
