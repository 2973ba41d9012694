// The benchmark results of a repository page: runs grouped by hardware (the GPU's name, else the
// CPU's), each group with the machine it ran on, a chart of its latest runs and a table of every
// case of every run (see pages.h).
#include <map>

#include "hub/web/chart.h"
#include "hub/web/html.h"
#include "hub/web/pages.h"

namespace kb::hub::web {

namespace {

constexpr size_t kChartRuns = 6;    // series of one chart: the latest runs of the hardware
constexpr size_t kChartCases = 40;  // bars per series: the first cases (the table lists them all)
constexpr size_t kTableRuns = 20;   // runs in the table of one hardware: the latest

std::string short_commit(const std::string& commit) { return commit.substr(0, 7); }

// "2026-11-23 16:50" from an ISO-8601 time.
std::string minute_of(const std::string& time) {
  std::string out = time.substr(0, 16);
  if (out.size() > 10 && out[10] == 'T') out[10] = ' ';
  return out;
}

std::string series_label(const BenchmarkRunView& run) {
  return short_commit(run.revision) + " · " + minute_of(run.uploaded_at) + " UTC";
}

std::string fraction_text(const std::optional<double>& fraction) {
  return fraction ? number_text(*fraction * 100) + " %" : "";
}

std::string verified_text(const std::optional<bool>& verified) {
  return !verified ? "not checked" : *verified ? "yes" : "NO";
}

std::string machine_text(const protocol::BenchmarkRun& run) {
  const auto& m = run.machine;
  std::string out = "CPU " + m.cpu;
  if (m.gpu) out += "; GPU " + *m.gpu;
  if (m.driver) out += "; driver " + *m.driver;
  if (m.cuda) out += "; CUDA " + *m.cuda;
  out += "; torch " + m.torch + "; Python " + m.python + "; " + m.platform + "; timer " +
         std::string(protocol::to_string(run.settings.timer));
  return out;
}

std::string cell(const std::string& text, bool number = false) {
  return std::string(number ? "<td class=\"num\">" : "<td>") + escape(text) + "</td>";
}

std::string hardware_section(const std::string& repo_id, const std::string& hardware,
                             const std::vector<const BenchmarkRunView*>& runs, const std::string& shown_commit) {
  std::string out = "<section class=\"hardware\" data-hardware=\"" + escape(hardware) + "\"><h3>" + escape(hardware) +
                    "</h3><p class=\"muted\">" + escape(machine_text(runs.back()->run)) + "</p>";

  BarChart chart;
  chart.title = hardware;
  chart.unit = "ms";
  std::map<std::string, size_t> category_index;
  size_t first = runs.size() > kChartRuns ? runs.size() - kChartRuns : 0;
  for (size_t r = first; r < runs.size(); ++r) {
    for (const auto& result : runs[r]->run.results) {
      std::string category = result.benchmark + "." + result.case_name;
      if (category_index.count(category) == 0) {
        category_index.emplace(category, chart.categories.size());
        chart.categories.push_back(category);
      }
    }
  }
  size_t all_cases = chart.categories.size();
  if (all_cases > kChartCases) chart.categories.resize(kChartCases);
  for (size_t r = first; r < runs.size(); ++r) {
    ChartSeries series{series_label(*runs[r]), std::vector<std::optional<ChartPoint>>(chart.categories.size())};
    for (const auto& result : runs[r]->run.results) {
      size_t index = category_index[result.benchmark + "." + result.case_name];
      if (index < chart.categories.size()) series.points[index] = ChartPoint{result.median, result.q1, result.q3};
    }
    chart.series.push_back(std::move(series));
  }
  out += render_bar_chart(chart);
  if (all_cases > chart.categories.size()) {
    out += "<p class=\"muted\">The chart shows the first " + std::to_string(chart.categories.size()) + " of " +
           std::to_string(all_cases) + " cases; the table lists them all.</p>";
  }

  out +=
      "<table class=\"benchmarks\"><thead><tr><th>Run</th><th>Benchmark</th><th>Case</th><th>Verified</th>"
      "<th>Mean (ms)</th><th>Std</th><th>Median</th><th>Q1</th><th>Q3</th><th>Min</th><th>Max</th>"
      "<th>Samples</th><th>Outliers</th><th>Bandwidth</th><th>Peak</th></tr></thead><tbody>";
  size_t tabled = 0;
  for (auto it = runs.rbegin(); it != runs.rend() && tabled < kTableRuns; ++it, ++tabled) {
    const BenchmarkRunView& run = **it;
    std::string run_cell = "<td class=\"mono\"><span title=\"" + escape(run.id) + "\">" + escape(series_label(run)) +
                           "</span>" + (run.revision == shown_commit ? " <span class=\"muted\">(shown)</span>" : "") +
                           "<br><span class=\"muted\">by " + escape(run.uploaded_by) +
                           (run.outsider ? " <span class=\"outsider\" title=\"not a member of the kernel's namespace\">"
                                           "(outsider)</span>"
                                         : "") +
                           ", " +
                           escape(run.run.kernel.variant) + "</span></td>";
    for (const auto& r : run.run.results) {
      out += "<tr>" + run_cell + cell(r.benchmark) + cell(r.case_name) + cell(verified_text(r.verified)) +
             cell(number_text(r.mean), true) + cell(number_text(r.std), true) + cell(number_text(r.median), true) +
             cell(number_text(r.q1), true) + cell(number_text(r.q3), true) + cell(number_text(r.min), true) +
             cell(number_text(r.max), true) + cell(std::to_string(r.samples), true) +
             cell(std::to_string(r.outliers), true) + cell(fraction_text(r.bandwidth_fraction), true) +
             cell(fraction_text(r.peak_fraction), true) + "</tr>";
    }
  }
  out += "</tbody></table>";
  if (runs.size() > kTableRuns) {
    out += "<p class=\"muted\">The latest " + std::to_string(kTableRuns) + " of " + std::to_string(runs.size()) +
           " runs; all of them: <code>GET /api/kernels/" + escape(repo_id) + "/benchmarks</code>.</p>";
  }
  out += "</section>";
  return out;
}

}  // namespace

std::string render_benchmarks(const RepoView& view) {
  std::string out = "<section id=\"benchmarks\"><h2>Benchmarks</h2>";
  if (view.benchmarks.empty()) {
    return out + "<p class=\"muted\">No benchmark results yet: <code>kernels benchmark " + escape(view.repo_id) +
           " --upload</code> runs the kernel's benchmarks and uploads them here.</p></section>";
  }
  // Hardware in order of its latest run, newest first.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const BenchmarkRunView*>> groups;
  for (auto it = view.benchmarks.rbegin(); it != view.benchmarks.rend(); ++it) {
    auto& group = groups[it->run.hardware()];
    if (group.empty()) order.push_back(it->run.hardware());
    group.insert(group.begin(), &*it);
  }
  for (const auto& hardware : order) out += hardware_section(view.repo_id, hardware, groups[hardware], view.commit);
  return out + "</section>";
}

}  // namespace kb::hub::web
