// Server-side SVG bar charts of benchmark results (see chart.h).
#include "hub/web/chart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "hub/web/html.h"

namespace kb::hub::web {

namespace {

// Colour-blind-safe palette (Okabe-Ito), one colour per series, repeating after eight.
constexpr std::array<const char*, 8> kPalette = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                                 "#56B4E9", "#D55E00", "#F0E442", "#000000"};

constexpr double kWidth = 760;
constexpr double kLabelWidth = 230;  // category labels, left of the plot
constexpr double kValueWidth = 80;   // value labels, right of the longest bar
constexpr double kBarHeight = 12;
constexpr double kBarGap = 2;
constexpr double kGroupGap = 10;
constexpr double kLegendRow = 18;
constexpr size_t kMaxLabel = 36;  // characters of a category label shown (the full one is its <title>)

std::string fixed(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return buffer;
}

// 1, 2 or 5 times a power of ten, at least `value`.
double nice_ceiling(double value) {
  if (!(value > 0)) return 1;
  double power = std::pow(10.0, std::floor(std::log10(value)));
  for (double step : {1.0, 2.0, 5.0, 10.0}) {
    if (step * power >= value * (1 - 1e-12)) return step * power;
  }
  return 10 * power;
}

// At most kMaxLabel characters (UTF-8 aware), with an ellipsis when cut.
std::string shortened(const std::string& text) {
  size_t characters = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (++characters > kMaxLabel) return text.substr(0, i) + "…";
  }
  return text;
}

}  // namespace

std::string number_text(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return buffer;
}

std::string render_bar_chart(const BarChart& chart) {
  double maximum = 0;
  for (const auto& series : chart.series) {
    for (const auto& point : series.points) {
      if (point) maximum = std::max({maximum, point->median, point->q3});
    }
  }
  const double axis = nice_ceiling(maximum);
  const double plot_width = kWidth - kLabelWidth - kValueWidth;
  const double legend_top = 34;
  const double plot_top = legend_top + kLegendRow * static_cast<double>(chart.series.size()) + 8;
  const double group_height = static_cast<double>(chart.series.size()) * (kBarHeight + kBarGap) + kGroupGap;
  const double plot_height = group_height * static_cast<double>(chart.categories.size());
  const double height = plot_top + plot_height + 36;
  auto x_of = [&](double value) { return kLabelWidth + plot_width * std::min(value, axis) / axis; };

  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" role=\"img\" viewBox=\"0 0 " +
                    fixed(kWidth) + " " + fixed(height) + "\" width=\"" + fixed(kWidth) + "\" height=\"" +
                    fixed(height) + "\" font-family=\"system-ui, sans-serif\" font-size=\"12\" aria-label=\"" +
                    escape(chart.title) + "\"><title>" + escape(chart.title) + "</title>";
  out += "<text x=\"0\" y=\"18\" font-size=\"14\" font-weight=\"600\" fill=\"currentColor\">" + escape(chart.title) +
         "</text>";

  out += "<g class=\"legend\">";
  for (size_t s = 0; s < chart.series.size(); ++s) {
    double y = legend_top + kLegendRow * static_cast<double>(s);
    out += "<rect x=\"" + fixed(kLabelWidth) + "\" y=\"" + fixed(y) + "\" width=\"12\" height=\"12\" fill=\"" +
           kPalette[s % kPalette.size()] + "\"/><text x=\"" + fixed(kLabelWidth + 18) + "\" y=\"" + fixed(y + 10) +
           "\" fill=\"currentColor\">" + escape(chart.series[s].label) + "</text>";
  }
  out += "</g>";

  // Grid lines and tick labels (milliseconds) below the plot.
  out += "<g class=\"axis\" fill=\"currentColor\" stroke-width=\"1\">";
  for (int tick = 0; tick <= 5; ++tick) {
    double value = axis * tick / 5;
    double x = x_of(value);
    out += "<line x1=\"" + fixed(x) + "\" y1=\"" + fixed(plot_top - 4) + "\" x2=\"" + fixed(x) + "\" y2=\"" +
           fixed(plot_top + plot_height) + "\" stroke=\"#8c959f\" stroke-opacity=\"0.35\"/>";
    out += "<text x=\"" + fixed(x) + "\" y=\"" + fixed(plot_top + plot_height + 14) + "\" text-anchor=\"middle\">" +
           number_text(value) + "</text>";
  }
  out += "<text x=\"" + fixed(kLabelWidth + plot_width / 2) + "\" y=\"" + fixed(plot_top + plot_height + 30) +
         "\" text-anchor=\"middle\">median time (" + escape(chart.unit) + "), whiskers: first to third quartile</text>";
  out += "</g>";

  out += "<g class=\"categories\" fill=\"currentColor\">";
  for (size_t c = 0; c < chart.categories.size(); ++c) {
    double y = plot_top + group_height * static_cast<double>(c) + (group_height - kGroupGap) / 2 + 4;
    out += "<text x=\"" + fixed(kLabelWidth - 8) + "\" y=\"" + fixed(y) + "\" text-anchor=\"end\"><title>" +
           escape(chart.categories[c]) + "</title>" + escape(shortened(chart.categories[c])) + "</text>";
  }
  out += "</g>";

  for (size_t s = 0; s < chart.series.size(); ++s) {
    const ChartSeries& series = chart.series[s];
    const char* colour = kPalette[s % kPalette.size()];
    out += "<g class=\"series\" data-series=\"" + escape(series.label) + "\" fill=\"" + colour + "\">";
    for (size_t c = 0; c < chart.categories.size() && c < series.points.size(); ++c) {
      if (!series.points[c]) continue;
      const ChartPoint& point = *series.points[c];
      double y = plot_top + group_height * static_cast<double>(c) + (kBarHeight + kBarGap) * static_cast<double>(s);
      double end = x_of(point.median);
      out += "<rect class=\"bar\" data-case=\"" + escape(chart.categories[c]) + "\" data-value=\"" +
             number_text(point.median) + "\" x=\"" + fixed(kLabelWidth) + "\" y=\"" + fixed(y) + "\" width=\"" +
             fixed(std::max(end - kLabelWidth, 1.0)) + "\" height=\"" + fixed(kBarHeight) + "\"><title>" +
             escape(series.label) + " — " + escape(chart.categories[c]) + ": " + number_text(point.median) + " " +
             escape(chart.unit) + " (" + number_text(point.q1) + "–" + number_text(point.q3) + ")</title></rect>";
      double middle = y + kBarHeight / 2;
      out += "<line x1=\"" + fixed(x_of(point.q1)) + "\" y1=\"" + fixed(middle) + "\" x2=\"" + fixed(x_of(point.q3)) +
             "\" y2=\"" + fixed(middle) + "\" stroke=\"currentColor\" stroke-width=\"1.5\"/>";
      out += "<text x=\"" + fixed(std::max(end, x_of(point.q3)) + 4) + "\" y=\"" + fixed(y + kBarHeight - 2) +
             "\" fill=\"currentColor\" font-size=\"11\">" + number_text(point.median) + "</text>";
    }
    out += "</g>";
  }
  out += "</svg>";
  return out;
}

}  // namespace kb::hub::web
