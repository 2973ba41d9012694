// A source's project headers (see project_includes.h).
#include "builder/project_includes.h"

#include <regex>
#include <set>

#include "util/fs.h"
#include "util/prelude.h"
#include "util/strings.h"

namespace kb::builder {

namespace {

constexpr int kMaxProjectIncludeDepth = 16;

}  // namespace

std::vector<IncludeDirective> include_directives(const std::string& text) {
  static const std::regex include(R"re(^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>))re");
  std::vector<IncludeDirective> out;
  for (const auto& line : util::split(text, '\n')) {
    std::smatch match;
    if (!std::regex_search(line, match, include)) continue;
    if (match[1].matched) {
      out.push_back({match[1], true});
    } else {
      out.push_back({match[2], false});
    }
  }
  return out;
}

bool torch_header(const std::string& include) {
  return util::starts_with(include, "torch/") || util::starts_with(include, "ATen/") ||
         util::starts_with(include, "c10/");
}

bool compiled_source(const std::string& path) {
  for (const char* ext : {".cpp", ".cc", ".cxx", ".c", ".cu", ".hip", ".mm"}) {
    if (util::ends_with(path, ext)) return true;
  }
  return false;
}

std::optional<fs::path> resolve_project_include(const fs::path& project, const std::vector<std::string>& include_dirs,
                                                const fs::path& file, const IncludeDirective& include) {
  std::vector<fs::path> candidates;
  if (include.quoted) candidates.push_back(file.parent_path() / include.name);
  for (const auto& dir : include_dirs) candidates.push_back(project / dir / include.name);
  std::error_code ec;
  for (const auto& candidate : candidates) {
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  return std::nullopt;
}

ProjectIncludeWalker::ProjectIncludeWalker(fs::path project, std::vector<std::string> include_dirs)
    : project_(std::move(project)), include_dirs_(std::move(include_dirs)) {}

const ProjectIncludeWalker::File& ProjectIncludeWalker::file(const fs::path& path) {
  auto found = files_.find(path);
  if (found != files_.end()) return found->second;
  File out;
  if (auto text = util::read_file(path)) {
    for (const auto& include : include_directives(*text)) {
      out.torch = out.torch || torch_header(include.name);
      if (auto header = resolve_project_include(project_, include_dirs_, path, include)) {
        out.headers.push_back(header->lexically_normal());
      }
    }
    out.text = std::move(*text);
  }
  return files_.emplace(path, std::move(out)).first->second;
}

bool ProjectIncludeWalker::includes_torch(const fs::path& path) { return file(path.lexically_normal()).torch; }

void ProjectIncludeWalker::walk(const fs::path& source, const IncludeVisitor& visit) {
  std::set<fs::path> seen;
  walk(source.lexically_normal(), 0, seen, visit);
}

void ProjectIncludeWalker::walk(const fs::path& path, int depth, std::set<fs::path>& seen, const IncludeVisitor& visit) {
  if (!seen.insert(path).second) return;
  const File& entry = file(path);
  if (!entry.text || !visit(path, *entry.text, depth) || depth >= kMaxProjectIncludeDepth) return;
  for (const auto& header : entry.headers) walk(header, depth + 1, seen, visit);
}

std::vector<std::pair<std::string, ProjectCode>> project_code(ProjectIncludeWalker& walker,
                                                              const std::vector<std::string>& sources) {
  std::vector<std::pair<std::string, ProjectCode>> out;
  for (const auto& source : sources) {
    if (!compiled_source(source)) continue;
    ProjectCode code;
    walker.walk(walker.project() / source, [&](const fs::path& file, const std::string& text, int) {
      code.bytes += text.size();
      code.torch = code.torch || walker.includes_torch(file);
      return true;
    });
    out.emplace_back(source, code);
  }
  return out;
}

}  // namespace kb::builder
