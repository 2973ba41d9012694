// kernel-hub's pages (hub/web/pages.h): versions, the index, the repository page with its
// benchmark section, escaping of everything a repository controls. The whole repository page is
// also pinned as a golden file: KB_REFRESH_GOLDEN=1 rewrites it (tests/unit/hub_web/refresh-golden).
#include "hub/web/pages.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "util/fs.h"

namespace kb::hub::web {
namespace {
namespace KB_UNITY_ID {

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

protocol::BenchmarkResult result(const std::string& name, double median) {
  protocol::BenchmarkResult r;
  r.benchmark = "Relu";
  r.case_name = name;
  r.verified = true;
  r.mean = r.median = median;
  r.min = r.q1 = median * 0.9;
  r.max = r.q3 = median * 1.1;
  r.std = median / 10;
  r.samples = 50;
  r.bandwidth_fraction = 0.5;
  return r;
}

BenchmarkRunView run(const std::string& id, const std::string& commit, const std::string& at,
                     std::optional<std::string> gpu, std::vector<protocol::BenchmarkResult> results) {
  BenchmarkRunView view{id, commit, "alice", at, {}};
  view.run.kernel = {"acme/relu", "main", "torch211-cxx11-cu126-x86_64-linux"};
  view.run.machine = {"EPYC",
                      gpu,
                      gpu ? std::optional<std::string>("580.1") : std::nullopt,
                      gpu ? std::optional<std::string>("12.6") : std::nullopt,
                      "2.11.0",
                      "3.12.3",
                      "Linux"};
  view.run.settings = {100, 10, gpu ? protocol::BenchmarkTimer::cuda_events : protocol::BenchmarkTimer::monotonic};
  view.run.results = std::move(results);
  return view;
}

RepoView sample_repo() {
  RepoView view;
  view.repo_id = "acme/relu";
  view.revision = "main";
  view.commit = std::string(40, 'a');
  view.commit_time = "2026-11-23T12:00:00.000Z";
  view.commit_message = "Upload <b>kernel</b>";
  std::tie(view.versions, view.branches) =
      split_versions({{"main", view.commit}, {"v10", "c"}, {"v2", "b"}, {"v1", "a"}, {"dev", "d"}});
  view.version_variants = {{"torch211-cxx11-cpu-x86_64-linux"}, {}, {"torch-cpu", "torch-cuda"}};  // v1, v2, v10
  view.tags = {{"release-1", "a"}};
  view.card_path = "README.md";
  view.card = "---\nlicense: mit\n---\n# Relu\n\n<script>x</script>\n";
  VariantRow row;
  row.name = "torch211-cxx11-cu126-x86_64-linux";
  row.kind = "torch";
  row.backend = "cuda";
  row.framework = "Torch 2.11";
  row.compute = "CUDA 12.6";
  row.platform = "x86_64-linux";
  row.archs = {"8.0", "9.0"};
  row.files = 4;
  row.size = 123456;
  row.digest = DigestStatus::verified;
  view.variants = {row};
  view.files = {{"README.md", 30, "00"}, {"build/torch211-cxx11-cu126-x86_64-linux/a b?.py", 10, "11"}};
  view.benchmarks = {
      run("0000000000000000000a", std::string(40, 'b'), "2026-11-22T10:00:00.000Z", "H100", {result("small", 0.02)}),
      run("0000000000000000000b", std::string(40, 'a'), "2026-11-23T10:00:00.000Z", std::nullopt,
          {result("small", 0.3), result("<img src=x>", 1.2)}),
      run("0000000000000000000c", std::string(40, 'a'), "2026-11-23T11:00:00.000Z", "H100",
          {result("small", 0.018), result("large", 0.4)}),
  };
  // A run posted by someone outside the kernel's namespace is marked as such.
  view.benchmarks[0].uploaded_by = "mallory";
  view.benchmarks[0].outsider = true;
  return view;
}

TEST(SplitVersions, VersionBranchesInNumericOrderThenTheOthers) {
  auto [versions, others] = split_versions({{"main", ""}, {"v10", ""}, {"v2", ""}, {"vx", ""}, {"v", ""}, {"v1", ""}});
  std::vector<std::string> version_names, other_names;
  for (const auto& ref : versions) version_names.push_back(ref.name);
  for (const auto& ref : others) other_names.push_back(ref.name);
  EXPECT_EQ(version_names, (std::vector<std::string>{"v1", "v2", "v10"}));
  EXPECT_EQ(other_names, (std::vector<std::string>{"main", "vx", "v"}));
}

TEST(RenderIndex, ListsRepositoriesWithLinksAndTheSearch) {
  IndexView view{"re\"l<", {{"acme/relu", "2026-11-23T12:00:00.000Z", {"v1", "v2"}}}, 3};
  std::string html = render_index(view);
  EXPECT_NE(html.find("<tr data-repo=\"acme/relu\"><td><a href=\"/acme/relu\">acme/relu</a></td><td>v1 v2</td>"),
            std::string::npos);
  EXPECT_NE(html.find("1 of 3 repositories match <code>re&quot;l&lt;</code>"), std::string::npos);
  EXPECT_NE(html.find("value=\"re&quot;l&lt;\""), std::string::npos);
  EXPECT_NE(render_index(IndexView{"zzz", {}, 3}).find("No repositories match."), std::string::npos);
}

TEST(RenderRepoPage, HasEverySectionAndEscapesRepositoryContent) {
  std::string html = render_repo_page(sample_repo());
  for (const char* id : {"revisions", "card", "variants", "benchmarks", "files"}) {
    EXPECT_NE(html.find("<section id=\"" + std::string(id) + "\""), std::string::npos) << id;
  }
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<b>kernel"), std::string::npos);
  EXPECT_NE(html.find("Upload &lt;b&gt;kernel&lt;/b&gt;"), std::string::npos);
  // Versions link to their branch view; the shown revision is not a link.
  EXPECT_NE(html.find("<a href=\"/acme/relu?revision=v1\" title=\"a\">v1</a><a href=\"/acme/relu?revision=v2\""),
            std::string::npos);
  EXPECT_NE(html.find("<span class=\"current\">main</span>"), std::string::npos);
  // File links are percent-encoded per segment and point at the shown commit.
  EXPECT_NE(html.find("/kernels/acme/relu/resolve/" + std::string(40, 'a') +
                      "/build/torch211-cxx11-cu126-x86_64-linux/a%20b%3F.py\""),
            std::string::npos);
}

TEST(RenderRepoPage, ListsEveryVersionWithItsVariantsNewestFirst) {
  std::string html = render_repo_page(sample_repo());
  auto v10 = html.find("<tr data-version=\"v10\"><td><a href=\"/acme/relu?revision=v10\" title=\"c\">v10</a></td>"
                       "<td><span class=\"mono\">torch-cpu</span><br><span class=\"mono\">torch-cuda</span></td></tr>");
  auto v2 = html.find("<tr data-version=\"v2\">");
  auto v1 = html.find("<span class=\"mono\">torch211-cxx11-cpu-x86_64-linux</span></td></tr>");
  ASSERT_NE(v10, std::string::npos);
  EXPECT_LT(v10, v2);
  EXPECT_LT(v2, v1);
  EXPECT_NE(html.find("<span class=\"muted\">none</span></td></tr>", v2), std::string::npos);
}

TEST(RenderRepoPage, PointsAtTheLatestVersionWhenTheRevisionHasNoVariants) {
  RepoView view = sample_repo();
  view.variants.clear();
  EXPECT_NE(render_repo_page(view).find("No build variants at <code>main</code>. The builds are on the version "
                                        "branches: the latest is <a href=\"/acme/relu?revision=v10\">v10</a>."),
            std::string::npos);
}

TEST(RenderRepoPage, TheRepositoryIsTheOneTopHeading) {
  std::string html = render_repo_page(sample_repo());
  EXPECT_NE(html.find("<h1 class=\"mono\">acme/relu</h1>"), std::string::npos);
  EXPECT_EQ(html.find("<h1"), html.rfind("<h1"));  // the card's `# Relu` is an <h2> under it
  EXPECT_NE(html.find("<h2>Relu</h2>"), std::string::npos);
}

TEST(RenderBenchmarks, OneSectionPerHardwareNewestFirstWithAChartSeriesPerRun) {
  std::string html = render_benchmarks(sample_repo());
  auto cpu = html.find("data-hardware=\"EPYC\"");
  auto gpu = html.find("data-hardware=\"H100\"");
  ASSERT_NE(cpu, std::string::npos);
  ASSERT_NE(gpu, std::string::npos);
  EXPECT_LT(gpu, cpu);  // the H100's latest run is the newest
  std::string h100 = html.substr(gpu, cpu - gpu);
  EXPECT_EQ(count(h100, "<g class=\"series\""), 2u);
  EXPECT_NE(h100.find("data-series=\"bbbbbbb · 2026-11-22 10:00 UTC\""), std::string::npos);
  EXPECT_NE(h100.find("data-series=\"aaaaaaa · 2026-11-23 11:00 UTC\""), std::string::npos);
  EXPECT_EQ(count(h100, "<rect class=\"bar\""), 3u);
  EXPECT_EQ(count(h100, "<tr><td class=\"mono\">"), 3u);  // a table row per case of every run
  EXPECT_NE(h100.find("(shown)"), std::string::npos);     // the run of the shown commit
  EXPECT_NE(html.find("<td>&lt;img src=x&gt;</td>"), std::string::npos);
  EXPECT_NE(render_benchmarks(RepoView{}).find("No benchmark results yet"), std::string::npos);
}

TEST(RenderBenchmarks, ChartsTheFirstFortyCasesAndTablesThemAll) {
  std::vector<protocol::BenchmarkResult> results;
  for (int i = 0; i < 45; ++i) results.push_back(result("case" + std::to_string(i), 1.0 + i));
  RepoView view;
  view.benchmarks = {run("0000000000000000000a", std::string(40, 'a'), "2026-11-23T10:00:00.000Z", "H100", results)};
  std::string html = render_benchmarks(view);
  EXPECT_EQ(count(html, "<rect class=\"bar\""), 40u);
  EXPECT_EQ(count(html, "<tr><td class=\"mono\">"), 45u);
  EXPECT_NE(html.find("The chart shows the first 40 of 45 cases"), std::string::npos);
}

TEST(RenderBenchmarks, TablesTheLatestTwentyRunsOfAHardware) {
  RepoView view;
  view.repo_id = "acme/relu";
  for (int i = 0; i < 25; ++i) {
    char at[32];
    std::snprintf(at, sizeof at, "2026-11-23T10:%02d:00.000Z", i);
    view.benchmarks.push_back(
        run(std::string(18, '0') + std::to_string(10 + i), std::string(40, 'a'), at, "H100", {result("small", 1.0)}));
  }
  std::string html = render_benchmarks(view);
  EXPECT_EQ(count(html, "<tr><td class=\"mono\">"), 20u);
  EXPECT_NE(html.find("10:24 UTC"), std::string::npos);         // the newest run is in
  EXPECT_EQ(html.find("10:04 UTC</span>"), std::string::npos);  // the oldest are not
  EXPECT_NE(html.find("The latest 20 of 25 runs; all of them: <code>GET /api/kernels/acme/relu/benchmarks</code>"),
            std::string::npos);
}

TEST(RenderRepoPage, Golden) {
  std::string html = render_repo_page(sample_repo());
  std::string path = std::string(KB_TEST_DATA_DIR) + "/unit/hub_web/golden/repo_page.html";
  if (const char* refresh = std::getenv("KB_REFRESH_GOLDEN"); refresh && refresh[0] == '1') {
    ASSERT_TRUE(util::write_file_atomic(path, html));
  }
  auto expected = util::read_file(path);
  ASSERT_TRUE(expected) << "missing " << path << "; run tests/unit/hub_web/refresh-golden";
  EXPECT_EQ(html, *expected);
}

TEST(RenderNotFound, SaysNothingButWhatItIsGiven) {
  std::string html = render_not_found("Repository not found.");
  EXPECT_NE(html.find("<h1>Not found</h1><p>Repository not found.</p>"), std::string::npos);
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::web
