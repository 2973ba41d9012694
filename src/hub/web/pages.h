// kernel-hub's HTML pages (docs/hub-pages.md), rendered from view models that the server fills
// (src/hub/server/page_routes.cpp): the index of repositories with its search, a repository page
// (the repository's name as its one heading, versions with their variants, branches, card,
// variant table, benchmark results per hardware, files) and the not-found page. Pure: strings
// in, HTML out; every value from a repository is escaped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hub/protocol/benchmark_run.h"
#include "hub/web/variant_table.h"

namespace kb::hub::web {

struct IndexEntry {
  std::string repo_id;
  std::string updated;                // ISO-8601 time of the main branch's head commit ("" if none)
  std::vector<std::string> versions;  // v<N> branches, ascending
};

struct IndexView {
  std::string search;  // as typed
  std::vector<IndexEntry> repos;
  size_t total = 0;  // repositories before the search
};

struct RefLink {
  std::string name;
  std::string commit;
};

struct BenchmarkRunView {
  std::string id;
  std::string revision;  // commit
  std::string uploaded_by;
  std::string uploaded_at;
  protocol::BenchmarkRun run;
  bool outsider = false;  // posted by someone outside the repository's namespace
};

struct RepoView {
  std::string repo_id;
  std::string revision;  // as requested ("main", "v1", a tag or a commit)
  std::string commit;
  std::string commit_time;
  std::string commit_message;
  std::vector<RefLink> versions;  // v<N> branches, ascending
  std::vector<std::vector<std::string>> version_variants;  // the build variants of each of `versions`
  std::vector<RefLink> branches;  // the other branches
  std::vector<RefLink> tags;
  std::string card_path;  // "README.md", "CARD.md" or "" when there is no card
  std::string card;       // its Markdown
  std::vector<VariantRow> variants;
  std::vector<RepoFile> files;
  std::vector<BenchmarkRunView> benchmarks;  // every run of the repository not hidden by its owners, oldest first
};

// v<N> branch names in numeric order first, then the other branches: (versions, others).
std::pair<std::vector<RefLink>, std::vector<RefLink>> split_versions(const std::vector<RefLink>& branches);

std::string render_index(const IndexView& view);
std::string render_repo_page(const RepoView& view);
std::string render_not_found(const std::string& what);

// The benchmark section of a repository page: per hardware, a chart and a table (benchmark_section.cpp).
std::string render_benchmarks(const RepoView& view);

}  // namespace kb::hub::web
