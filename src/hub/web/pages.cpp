// The index, repository and not-found pages (see pages.h).
#include "hub/web/pages.h"

#include <algorithm>

#include "hub/protocol/names.h"
#include "hub/web/html.h"
#include "hub/web/markdown.h"

namespace kb::hub::web {

namespace {

std::string repo_url(const std::string& repo_id) {
  auto slash = repo_id.find('/');
  return "/" + url_encode(repo_id.substr(0, slash)) + "/" + url_encode(repo_id.substr(slash + 1));
}

std::string revision_url(const std::string& repo_id, const std::string& revision) {
  return repo_url(repo_id) + "?revision=" + url_encode(revision);
}

std::string file_url(const std::string& repo_id, const std::string& commit, const std::string& path) {
  std::string out = "/kernels" + repo_url(repo_id) + "/resolve/" + url_encode(commit);
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    out += "/" + url_encode(path.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

std::string ref_links(const std::string& repo_id, const std::vector<RefLink>& refs, const std::string& current) {
  std::string out;
  for (const auto& ref : refs) {
    if (ref.name == current) {
      out += "<span class=\"current\">" + escape(ref.name) + "</span>";
    } else {
      out += "<a href=\"" + escape(revision_url(repo_id, ref.name)) + "\" title=\"" + escape(ref.commit) + "\">" +
             escape(ref.name) + "</a>";
    }
  }
  return out;
}

std::string refs_section(const RepoView& view) {
  std::string out = "<section id=\"revisions\" class=\"refs\"><p>";
  out += "<strong>Versions:</strong> ";
  out += view.versions.empty() ? "<span class=\"muted\">none</span>"
                               : ref_links(view.repo_id, view.versions, view.revision);
  out += "</p><p><strong>Branches:</strong> " + ref_links(view.repo_id, view.branches, view.revision);
  if (!view.tags.empty()) out += "</p><p><strong>Tags:</strong> " + ref_links(view.repo_id, view.tags, view.revision);
  out += "</p><p class=\"muted\">Showing <code>" + escape(view.revision) + "</code> at commit <code title=\"" +
         escape(view.commit) + "\">" + escape(view.commit.substr(0, 12)) + "</code>";
  if (!view.commit_time.empty()) out += ", " + escape(view.commit_time);
  if (!view.commit_message.empty()) out += ": " + escape(view.commit_message);
  return out + "</p></section>";
}

// Every version with its variants, so that a visitor landing on `main` (which holds no builds)
// sees where they are.
std::string versions_section(const RepoView& view) {
  if (view.versions.empty()) return "";
  std::string out =
      "<section id=\"versions\"><h2>Versions</h2><table class=\"versions\"><thead><tr><th>Version</th>"
      "<th>Variants</th></tr></thead><tbody>";
  for (size_t i = view.versions.size(); i-- > 0;) {  // newest first
    const RefLink& version = view.versions[i];
    std::string variants;
    if (i < view.version_variants.size()) {
      for (const auto& name : view.version_variants[i]) {
        variants += (variants.empty() ? "" : "<br>") + ("<span class=\"mono\">" + escape(name) + "</span>");
      }
    }
    if (variants.empty()) variants = "<span class=\"muted\">none</span>";
    out += "<tr data-version=\"" + escape(version.name) + "\"><td>" +
           ref_links(view.repo_id, {version}, view.revision) + "</td><td>" + variants + "</td></tr>";
  }
  return out + "</tbody></table></section>";
}

std::string variants_section(const RepoView& view) {
  std::string out = "<section id=\"variants\"><h2>Variants</h2>";
  if (view.variants.empty()) {
    std::string text = "No build variants at <code>" + escape(view.revision) + "</code>.";
    if (!view.versions.empty()) {
      const RefLink& latest = view.versions.back();
      text += " The builds are on the version branches: the latest is <a href=\"" +
              escape(revision_url(view.repo_id, latest.name)) + "\">" + escape(latest.name) + "</a>.";
    }
    return out + "<p class=\"muted\">" + text + "</p></section>";
  }
  out +=
      "<table class=\"variants\"><thead><tr><th>Variant</th><th>Backend</th><th>Framework</th><th>Compute</th>"
      "<th>Platform</th><th>GPU archs</th><th>Files</th><th>Size</th><th>Digest</th></tr></thead><tbody>";
  for (const auto& row : view.variants) {
    std::string archs;
    for (const auto& arch : row.archs) archs += (archs.empty() ? "" : " ") + arch;
    std::string status(to_string(row.digest));
    std::string status_class = "status-" + std::string(row.digest == DigestStatus::verified   ? "verified"
                                                       : row.digest == DigestStatus::mismatch ? "mismatch"
                                                       : row.digest == DigestStatus::invalid  ? "invalid"
                                                                                              : "none");
    out += "<tr data-variant=\"" + escape(row.name) + "\"><td class=\"mono\">" + escape(row.name) + "</td><td>" +
           escape(row.backend) + "</td><td>" + escape(row.framework) + "</td><td>" + escape(row.compute) + "</td><td>" +
           escape(row.platform) + "</td><td>" + escape(archs) + "</td><td class=\"num\">" + std::to_string(row.files) +
           "</td><td class=\"num\">" + size_text(row.size) + "</td><td class=\"" + status_class + "\"" +
           (row.detail.empty() ? "" : " title=\"" + escape(row.detail) + "\"") + ">" + escape(status) + "</td></tr>";
  }
  return out + "</tbody></table></section>";
}

std::string files_section(const RepoView& view) {
  std::string out =
      "<section id=\"files\"><h2>Files</h2><table class=\"files\"><thead><tr><th>Path</th>"
      "<th>Size</th></tr></thead><tbody>";
  for (const auto& file : view.files) {
    out += "<tr><td class=\"mono\"><a href=\"" + escape(file_url(view.repo_id, view.commit, file.path)) + "\">" +
           escape(file.path) + "</a></td><td class=\"num\">" + size_text(file.size) + "</td></tr>";
  }
  return out + "</tbody></table></section>";
}

}  // namespace

std::pair<std::vector<RefLink>, std::vector<RefLink>> split_versions(const std::vector<RefLink>& branches) {
  std::vector<RefLink> versions, others;
  for (const auto& ref : branches) (protocol::parse_version_branch(ref.name) ? versions : others).push_back(ref);
  std::sort(versions.begin(), versions.end(), [](const RefLink& a, const RefLink& b) {
    return *protocol::parse_version_branch(a.name) < *protocol::parse_version_branch(b.name);
  });
  return {versions, others};
}

std::string render_index(const IndexView& view) {
  std::string main = "<h1>Repositories</h1>";
  if (!view.search.empty()) {
    main += "<p class=\"muted\">" + std::to_string(view.repos.size()) + " of " + std::to_string(view.total) +
            " repositories match <code>" + escape(view.search) + "</code>. <a href=\"/\">Show all</a></p>";
  }
  if (view.repos.empty()) {
    main += "<p class=\"muted\">No repositories" + std::string(view.search.empty() ? "" : " match") + ".</p>";
    return page_frame("Repositories", view.search, main);
  }
  main += "<table class=\"repos\"><thead><tr><th>Repository</th><th>Versions</th><th>Updated</th></tr></thead><tbody>";
  for (const auto& entry : view.repos) {
    std::string versions;
    for (const auto& version : entry.versions) versions += (versions.empty() ? "" : " ") + version;
    main += "<tr data-repo=\"" + escape(entry.repo_id) + "\"><td><a href=\"" + escape(repo_url(entry.repo_id)) + "\">" +
            escape(entry.repo_id) + "</a></td><td>" + escape(versions) + "</td><td>" + escape(entry.updated) +
            "</td></tr>";
  }
  main += "</tbody></table>";
  return page_frame("Repositories", view.search, main);
}

std::string render_repo_page(const RepoView& view) {
  std::string main = "<h1 class=\"mono\">" + escape(view.repo_id) + "</h1>";
  main += refs_section(view);
  main += versions_section(view);
  main +=
      "<section id=\"card\"><h2>" + (view.card_path.empty() ? std::string("Card") : escape(view.card_path)) + "</h2>";
  main += view.card_path.empty() ? "<p class=\"muted\">This repository has no README.md or CARD.md.</p>"
                                 : "<div class=\"card\">" + render_markdown(view.card, 2) + "</div>";
  main += "</section>";
  main += variants_section(view);
  main += render_benchmarks(view);
  main += files_section(view);
  return page_frame(view.repo_id, "", main);
}

std::string render_not_found(const std::string& what) {
  return page_frame("Not found", "",
                    "<h1>Not found</h1><p>" + escape(what) + "</p><p><a href=\"/\">All repositories</a></p>");
}

}  // namespace kb::hub::web
