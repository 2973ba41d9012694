// Two builds in two directories, compared (see reproducible.h).
#include "builder/reproducible.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "abi/binary.h"
#include "builder/unique_id.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/prelude.h"
#include "util/process.h"
#include "util/strings.h"

namespace kb::builder {

namespace {

// Copies the project's sources: everything but the top-level build outputs and version control.
util::Status copy_sources(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to, ec);
  for (const auto& entry : fs::directory_iterator(from, ec)) {
    std::string name = entry.path().filename().string();
    if (name == "build" || name == "result" || name == ".git") continue;
    fs::copy(entry.path(), to / name, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
    if (ec) return Error(ErrorKind::io, "Cannot copy `" + entry.path().string() + "`").with_cause(ec.message());
  }
  if (ec) return Error(ErrorKind::io, "Cannot read `" + from.string() + "`").with_cause(ec.message());
  return {};
}

bool is_elf(const std::string& bytes) { return bytes.size() >= 4 && bytes.compare(0, 4, "\x7f" "ELF") == 0; }

std::string first_differing_offset(const std::string& a, const std::string& b) {
  size_t n = std::min(a.size(), b.size()), i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return "first difference at byte " + std::to_string(i) + " (sizes " + std::to_string(a.size()) + " and " +
         std::to_string(b.size()) + ")";
}

}  // namespace

std::string source_date_epoch(const fs::path& project) {
  if (const char* set = std::getenv("SOURCE_DATE_EPOCH"); set && *set) return set;
  auto git = util::run_process({"git", "-C", project.string(), "log", "-1", "--format=%ct"});
  if (git && git->success()) {
    std::string value(util::trim(git->stdout_text));
    if (!value.empty() && value.find_first_not_of("0123456789") == std::string::npos) return value;
  }
  return "0";
}

bool ReproducibilityReport::ok() const {
  for (const auto& v : variants) {
    if (v.difference) return false;
  }
  return true;
}

std::optional<std::string> first_difference(const fs::path& a, const fs::path& b) {
  auto files_a = util::list_files_recursive(a), files_b = util::list_files_recursive(b);
  for (size_t i = 0; i < std::max(files_a.size(), files_b.size()); ++i) {
    if (i >= files_a.size() || (i < files_b.size() && files_b[i] < files_a[i])) {
      return files_b[i] + ": only in the second build";
    }
    if (i >= files_b.size() || files_a[i] != files_b[i]) return files_a[i] + ": only in the first build";
    auto bytes_a = util::read_file(a / files_a[i]), bytes_b = util::read_file(b / files_b[i]);
    if (!bytes_a || !bytes_b) return files_a[i] + ": cannot be read";
    if (*bytes_a == *bytes_b) continue;
    if (is_elf(*bytes_a) && is_elf(*bytes_b)) {
      auto sections_a = abi::read_sections(a / files_a[i]), sections_b = abi::read_sections(b / files_b[i]);
      if (sections_a && sections_b) {
        // The build id is a digest of everything else (derive_build_id): it differs whenever another
        // section does, so the first of those is named, with the others after it.
        std::vector<size_t> differing;
        for (size_t s = 0; s < std::min(sections_a->size(), sections_b->size()); ++s) {
          const auto& [name, content] = (*sections_a)[s];
          if (name != (*sections_b)[s].first) return files_a[i] + ": section lists differ at " + name;
          if (content != (*sections_b)[s].second) differing.push_back(s);
        }
        std::stable_partition(differing.begin(), differing.end(),
                              [&](size_t s) { return (*sections_a)[s].first != ".note.gnu.build-id"; });
        if (!differing.empty()) {
          const auto& [name, content] = (*sections_a)[differing[0]];
          std::string out = files_a[i] + " section " + name + ": " +
                            first_differing_offset(content, (*sections_b)[differing[0]].second);
          for (size_t d = 1; d < differing.size(); ++d) {
            out += (d == 1 ? "; also " : ", ") + (*sections_a)[differing[d]].first;
          }
          return out;
        }
        if (sections_a->size() != sections_b->size()) return files_a[i] + ": section counts differ";
        return files_a[i] + ": ELF headers or layout differ";
      }
    }
    return files_a[i] + ": " + first_differing_offset(*bytes_a, *bytes_b);
  }
  return std::nullopt;
}

Result<ReproducibilityReport> check_reproducible(const BuildOptions& options, BuildReporter& reporter) {
  std::error_code ec;
  if (!fs::is_directory(options.kernel_dir, ec)) {
    return Error(ErrorKind::usage, "`" + options.kernel_dir.string() + "` is not a directory");
  }
  fs::path project = fs::absolute(options.kernel_dir).lexically_normal();
  if (!project.has_filename()) project = project.parent_path();
  if (options.unique_id) KB_TRY(check_unique_id(*options.unique_id));
  // One unique id for both builds (the copies are outside git): --unique-id, else the project's.
  std::string unique_id = make_unique_id(options.unique_id, read_git_info(project));
  // And one SOURCE_DATE_EPOCH: the project's, which the copies (outside git) cannot read.
  ::setenv("SOURCE_DATE_EPOCH", source_date_epoch(project).c_str(), 0);

  auto stamp = std::chrono::system_clock::now().time_since_epoch().count();
  ReproducibilityReport report;
  report.kept = fs::temp_directory_path() / ("kb-reproducible-" + std::to_string(::getpid()) + "-" + std::to_string(stamp));
  // Two directories of different depth and length: nothing may depend on where the project is.
  const fs::path dirs[2] = {report.kept / "a" / project.filename(), report.kept / "second-build" / "b" / project.filename()};
  std::vector<std::string> built;
  for (int i = 0; i < 2; ++i) {
    KB_TRY(copy_sources(project, dirs[i]));
    reporter.note("reproducibility check: build " + std::to_string(i + 1) + " of 2 in " + dirs[i].string());
    BuildOptions copy = options;
    copy.kernel_dir = dirs[i];
    copy.unique_id = unique_id;
    copy.no_cache = true;  // a compiler cache would hand the second build the first one's objects
    copy.remote_cache.reset();  // nor a shared one (KERNEL_BUILDER_REMOTE_CACHE is ignored with no_cache)
    auto summary = builder::run_build(copy, reporter);
    if (!summary) {
      Error error = std::move(summary).error();
      error.hints.push_back("the build trees are kept in " + report.kept.string());
      return error;
    }
    if (i == 0) built = summary->built;
  }
  std::sort(built.begin(), built.end());
  for (const auto& variant : built) {
    VariantComparison comparison;
    comparison.variant = variant;
    fs::path a = dirs[0] / "build" / variant, b = dirs[1] / "build" / variant;
    auto metadata = util::read_file(a / "metadata.json");
    comparison.digest = metadata ? util::sha256_hex(*metadata) : "";
    comparison.difference = first_difference(a, b);
    report.variants.push_back(std::move(comparison));
  }
  if (report.ok()) {
    fs::remove_all(report.kept, ec);
    report.kept.clear();
  }
  return report;
}

}  // namespace kb::builder
