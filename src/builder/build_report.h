// What a finished `build` reports as data (`build --json`, stdout): the variants built, up to date
// and not built, and the compile time of every source each built variant compiled.
#pragma once

#include <string>

#include "builder/builder.h"

namespace kb::builder {

// {"built": [...], "up_to_date": [...], "not_built": [...],
//  "compile_times": {"<variant>": [{"source": "...", "seconds": 1.25, "started": 0.5}, ...]}} (sources slowest first).
std::string render_summary_json(const BuildSummary& summary);

}  // namespace kb::builder
