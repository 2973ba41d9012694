// Progress text and the running compiles (see build_progress.h).
#include "builder/build_progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "util/fs.h"
#include "util/prelude.h"
#include "util/strings.h"

namespace kb::builder {

std::string format_elapsed(double seconds) {
  long total = std::max(0L, static_cast<long>(std::floor(seconds)));
  char text[32];
  if (total >= 3600) {
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", total / 3600, (total / 60) % 60, total % 60);
  } else {
    std::snprintf(text, sizeof text, "%ld:%02ld", total / 60, total % 60);
  }
  return text;
}

std::string render_progress(const std::string& variant, const VariantProgress& p) {
  std::string line = variant + ": " + std::string(to_string(p.stage));
  bool compiling = p.stage == Stage::compile || p.stage == Stage::link;
  if (compiling && p.total > 0) line += " [" + std::to_string(p.done) + "/" + std::to_string(p.total) + "]";
  line += " (" + format_elapsed(p.elapsed) + ")";
  if (compiling && p.longest && p.longest->seconds >= kLongCompileSeconds) {
    line += ", slowest running: " + p.longest->source + " (" + std::to_string(static_cast<long>(p.longest->seconds)) + " s)";
  }
  return line;
}

bool long_compile_line_due(const RunningSource& longest, std::optional<double> last_named_at) {
  if (longest.seconds < kLongCompileSeconds) return false;
  return !last_named_at || longest.seconds - *last_named_at >= kRepeatSeconds;
}

std::optional<std::string> compile_output(const std::vector<std::string>& argv) {
  std::vector<std::string> words;
  for (const auto& arg : argv) {
    for (auto& word : util::split(arg, ' ')) {
      if (!word.empty()) words.push_back(std::move(word));
    }
  }
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    const std::string& output = words[i + 1];
    if (words[i] == "-o" && util::ends_with(output, ".o") && output.find(".dir/") != std::string::npos) return output;
  }
  return std::nullopt;
}

namespace {

// Seconds since boot at which process `pid` started; none when it cannot be read.
std::optional<double> process_start(const std::string& pid) {
  auto stat = util::read_file("/proc/" + pid + "/stat");
  if (!stat) return std::nullopt;
  auto close = stat->rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return std::nullopt;
  auto fields = util::split(stat->substr(close + 2), ' ');
  constexpr size_t kStartTime = 19;  // field 22 of stat, counted after the name
  if (fields.size() <= kStartTime) return std::nullopt;
  try {
    return std::stod(fields[kStartTime]) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

std::vector<RunningCompile> running_compiles(const fs::path& build_dir) {
  std::vector<RunningCompile> out;
  std::error_code ec;
  auto uptime_text = util::read_file("/proc/uptime");
  if (!uptime_text) return out;
  double uptime = std::atof(uptime_text->c_str());
  fs::path dir = fs::canonical(build_dir, ec);
  if (ec) return out;
  std::map<std::string, double> longest;  // output -> seconds (its sh, ccache and compiler processes)
  for (auto it = fs::directory_iterator("/proc", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::string pid = it->path().filename().string();
    if (pid.empty() || !std::all_of(pid.begin(), pid.end(), ::isdigit)) continue;
    std::error_code link_error;
    if (fs::read_symlink(it->path() / "cwd", link_error) != dir || link_error) continue;
    auto cmdline = util::read_file(it->path() / "cmdline");
    if (!cmdline) continue;
    auto output = compile_output(util::split(*cmdline, '\0'));
    auto start = process_start(pid);
    if (!output || !start) continue;
    double& seconds = longest[*output];
    seconds = std::max(seconds, uptime - *start);
  }
  for (const auto& [output, seconds] : longest) out.push_back({output, seconds});
  std::sort(out.begin(), out.end(), [](const RunningCompile& a, const RunningCompile& b) { return a.seconds > b.seconds; });
  return out;
}

}  // namespace kb::builder
