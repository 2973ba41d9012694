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

void walk_includes(const fs::path& project, const std::vector<std::string>& include_dirs, const fs::path& file, int depth,
          std::set<fs::path>& seen, const IncludeVisitor& visit) {
  if (!seen.insert(file.lexically_normal()).second) return;
  auto text = util::read_file(file);
  if (!text || !visit(file, *text, depth) || depth >= kMaxProjectIncludeDepth) return;
  for (const auto& include : include_directives(*text)) {
    if (auto header = resolve_project_include(project, include_dirs, file, include)) {
      walk_includes(project, include_dirs, *header, depth + 1, seen, visit);
    }
  }
}

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

void walk_project_includes(const fs::path& project, const std::vector<std::string>& include_dirs,
                           const fs::path& source, const IncludeVisitor& visit) {
  std::set<fs::path> seen;
  walk_includes(project, include_dirs, source, 0, seen, visit);
}

std::vector<std::pair<std::string, std::uintmax_t>> project_code_bytes(const fs::path& project,
                                                                       const std::vector<std::string>& sources,
                                                                       const std::vector<std::string>& include_dirs) {
  std::vector<std::pair<std::string, std::uintmax_t>> out;
  for (const auto& source : sources) {
    if (!compiled_source(source)) continue;
    std::uintmax_t bytes = 0;
    walk_project_includes(project, include_dirs, project / source, [&](const fs::path&, const std::string& text, int) {
      bytes += text.size();
      return true;
    });
    out.emplace_back(source, bytes);
  }
  return out;
}

}  // namespace kb::builder
