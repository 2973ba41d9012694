// A finished build as data (see build_report.h).
#include "builder/build_report.h"

#include <cmath>

#include <nlohmann/json.hpp>

namespace kb::builder {

std::string render_summary_json(const BuildSummary& summary) {
  nlohmann::ordered_json out;
  out["built"] = summary.built;
  out["up_to_date"] = summary.up_to_date;
  out["not_built"] = summary.not_built;
  out["compile_times"] = nlohmann::ordered_json::object();
  for (const auto& [variant, times] : summary.compile_times) {
    auto& list = out["compile_times"][variant] = nlohmann::ordered_json::array();
    for (const auto& time : times) {
      // Milliseconds are what Ninja records.
      list.push_back({{"source", time.source},
                      {"seconds", std::round(time.seconds * 1000.0) / 1000.0},
                      {"started", std::round(time.started * 1000.0) / 1000.0}});
    }
  }
  return out.dump(2) + "\n";
}

}  // namespace kb::builder
