// Server-side SVG charts (hub/web/chart.h).
#include "hub/web/chart.h"

#include <gtest/gtest.h>

namespace kb::hub::web {
namespace {
namespace KB_UNITY_ID {

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

BarChart two_runs() {
  BarChart chart{"H100", "ms", {"B.small", "B.large"}, {}};
  chart.series.push_back({"abc1234 · run 1", {ChartPoint{0.5, 0.4, 0.6}, ChartPoint{2.0, 1.9, 2.2}}});
  chart.series.push_back({"def5678 · run 2", {ChartPoint{0.25, 0.2, 0.3}, std::nullopt}});
  return chart;
}

TEST(RenderBarChart, OneGroupPerSeriesAndOneBarPerPresentCase) {
  std::string svg = render_bar_chart(two_runs());
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\"", 0), 0u);
  EXPECT_EQ(count(svg, "<g class=\"series\""), 2u);
  EXPECT_NE(svg.find("data-series=\"abc1234 · run 1\""), std::string::npos);
  EXPECT_EQ(count(svg, "<rect class=\"bar\""), 3u);
  EXPECT_NE(svg.find("data-case=\"B.large\" data-value=\"2\""), std::string::npos);
  EXPECT_NE(svg.find("data-case=\"B.small\" data-value=\"0.25\""), std::string::npos);
}

TEST(RenderBarChart, BarLengthsAreProportionalOnANiceAxis) {
  std::string svg = render_bar_chart(two_runs());
  // The axis ends at 5 (the nice ceiling of 2.2); the plot is 450 units wide from x=230.
  EXPECT_NE(svg.find(">5</text>"), std::string::npos);
  EXPECT_NE(svg.find("data-value=\"2\" x=\"230.0\" y=\"116.0\" width=\"180.0\""), std::string::npos);
  EXPECT_NE(svg.find("data-value=\"0.5\" x=\"230.0\" y=\"78.0\" width=\"45.0\""), std::string::npos);
}

TEST(RenderBarChart, EscapesEveryLabelAndHasNoStyleOrScript) {
  BarChart chart{"<t>\"", "ms", {"<img src=x onerror=alert(1)>"}, {}};
  chart.series.push_back({"\"><script>alert(1)</script>", {ChartPoint{1, 1, 1}}});
  std::string svg = render_bar_chart(chart);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("<img"), std::string::npos);
  EXPECT_EQ(svg.find("style="), std::string::npos);
  EXPECT_NE(svg.find("data-series=\"&quot;&gt;&lt;script&gt;"), std::string::npos);
}

TEST(RenderBarChart, EmptyAndZeroChartsAreWellFormed) {
  std::string empty = render_bar_chart(BarChart{"none", "ms", {}, {}});
  EXPECT_EQ(count(empty, "<rect class=\"bar\""), 0u);
  BarChart zero{"zero", "ms", {"c"}, {{"s", {ChartPoint{0, 0, 0}}}}};
  std::string svg = render_bar_chart(zero);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
}

TEST(NumberText, FourSignificantDigits) {
  EXPECT_EQ(number_text(0.021), "0.021");
  EXPECT_EQ(number_text(1234.5678), "1235");
  EXPECT_EQ(number_text(0.000123456), "0.0001235");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::web
