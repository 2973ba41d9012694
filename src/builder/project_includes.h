// The project's own code that one compiled source reads: the source and the project headers it
// includes (quoted includes found next to the includer or in the module's include directories,
// angle-bracket includes found in those directories), each once. The ops id scan
// (ops_id_use.h) reads them for the macro; the start order of a first build (compile_step.cpp)
// weighs a source by their size and by whether they include torch's headers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace kb::builder {

struct IncludeDirective {
  std::string name;
  bool quoted = false;  // "name" rather than <name>
  bool operator==(const IncludeDirective&) const = default;
};
// The include directives of a C/C++ text, in order (pure).
std::vector<IncludeDirective> include_directives(const std::string& text);

// Whether `include` (the text between <> or "") names one of torch's headers: torch/, ATen/ or c10/ (pure).
bool torch_header(const std::string& include);

// Whether `path` names a translation unit (.cpp, .cc, .cxx, .c, .cu, .hip, .mm) rather than a header (pure).
bool compiled_source(const std::string& path);

// Where `include` of `file` resolves in the project; nullopt when it is not there (a system or
// torch header, or the generated registration.h).
std::optional<std::filesystem::path> resolve_project_include(const std::filesystem::path& project,
                                                             const std::vector<std::string>& include_dirs,
                                                             const std::filesystem::path& file,
                                                             const IncludeDirective& include);

// Calls `visit(file, text, depth)` for a source (depth 0) and then, depth first, for each project
// header it reaches, each file once per source, 16 includes deep at most. `visit` returns whether
// to follow the includes of that file. Files that cannot be read are passed over. One walker reads
// each file and finds its includes once, however many sources reach it (a project's sources
// mostly share their headers).
using IncludeVisitor = std::function<bool(const std::filesystem::path& file, const std::string& text, int depth)>;
class ProjectIncludeWalker {
 public:
  ProjectIncludeWalker(std::filesystem::path project, std::vector<std::string> include_dirs);
  void walk(const std::filesystem::path& source, const IncludeVisitor& visit);
  const std::filesystem::path& project() const { return project_; }
  // Whether `file` itself includes one of torch's headers (torch_header).
  bool includes_torch(const std::filesystem::path& file);

 private:
  struct File {
    std::optional<std::string> text;             // none: it cannot be read
    std::vector<std::filesystem::path> headers;  // its includes found in the project, in order
    bool torch = false;                          // it includes one of torch's headers
  };
  const File& file(const std::filesystem::path& path);
  void walk(const std::filesystem::path& path, int depth, std::set<std::filesystem::path>& seen,
            const IncludeVisitor& visit);

  std::filesystem::path project_;
  std::vector<std::string> include_dirs_;
  std::map<std::filesystem::path, File> files_;
};

// The project code one compiled source reads: the bytes of the source and of the project headers
// it reaches, and whether any of them includes one of torch's headers.
struct ProjectCode {
  std::uintmax_t bytes = 0;
  bool torch = false;
  bool operator==(const ProjectCode&) const = default;
};
// For each compiled source of `sources` (relative to the walker's project, in their order; headers
// skipped): the project code it reads.
std::vector<std::pair<std::string, ProjectCode>> project_code(ProjectIncludeWalker& walker,
                                                              const std::vector<std::string>& sources);

}  // namespace kb::builder
