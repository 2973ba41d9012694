// Benchmark charts as inline SVG, drawn on the server: a horizontal grouped bar chart with one
// group per case and one bar per series (a benchmark run), the bar at the median time and a
// whisker from the first to the third quartile. Every label is escaped; the SVG uses
// presentation attributes only (no style attribute, no script), so the pages' CSP admits it.
// Each series is a <g class="series" data-series="label"> holding <rect class="bar"
// data-case="..." data-value="..."> elements, which is what tests and scripts read.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kb::hub::web {

struct ChartPoint {
  double median = 0;
  double q1 = 0;
  double q3 = 0;
};

struct ChartSeries {
  std::string label;
  std::vector<std::optional<ChartPoint>> points;  // one per category; nullopt: case not in this run
};

struct BarChart {
  std::string title;
  std::string unit;                     // "ms"
  std::vector<std::string> categories;  // case labels, top to bottom
  std::vector<ChartSeries> series;
};

std::string render_bar_chart(const BarChart& chart);

// A value as the chart and tables print it: 4 significant digits ("0.02100" -> "0.021").
std::string number_text(double value);

}  // namespace kb::hub::web
