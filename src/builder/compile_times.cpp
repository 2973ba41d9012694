// Per-source compile times from Ninja's log (see compile_times.h).
#include "builder/compile_times.h"

#include <algorithm>
#include <cstdio>

#include "util/strings.h"

namespace kb::builder {

std::map<std::string, NinjaLogEntry> parse_ninja_log(const std::string& text) {
  std::map<std::string, NinjaLogEntry> out;
  for (const auto& line : util::split(text, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    auto fields = util::split(line, '\t');
    if (fields.size() < 5) continue;
    NinjaLogEntry entry;
    try {
      entry.start_ms = std::stoll(fields[0]);
      entry.end_ms = std::stoll(fields[1]);
    } catch (...) {
      continue;
    }
    entry.line = line;
    out[fields[3]] = std::move(entry);
  }
  return out;
}

std::string object_source(const std::string& object, const std::vector<std::string>& sources) {
  std::string path = object.substr(0, object.size() - 2);  // without .o
  std::string best;
  for (const auto& source : sources) {
    bool matches = path == source || (path.size() > source.size() && util::ends_with(path, "/" + source));
    if (matches && source.size() > best.size()) best = source;
  }
  if (!best.empty()) return best;
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

namespace {

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", seconds);
  return text;
}

}  // namespace

std::vector<SourceTime> compile_times(const std::map<std::string, NinjaLogEntry>& before,
                                      const std::map<std::string, NinjaLogEntry>& after,
                                      const std::vector<std::string>& sources) {
  std::vector<SourceTime> out;
  std::vector<std::int64_t> starts;
  for (const auto& [output, entry] : after) {
    if (!util::ends_with(output, ".o") || output.find(".dir/") == std::string::npos) continue;
    auto previous = before.find(output);
    if (previous != before.end() && previous->second.line == entry.line) continue;
    out.push_back({object_source(output, sources), static_cast<double>(entry.end_ms - entry.start_ms) / 1000.0});
    starts.push_back(entry.start_ms);
  }
  // Start offsets from this build's first compile (Ninja's clock starts with each run).
  if (!starts.empty()) {
    std::int64_t first = *std::min_element(starts.begin(), starts.end());
    for (size_t i = 0; i < out.size(); ++i) out[i].started = static_cast<double>(starts[i] - first) / 1000.0;
  }
  std::stable_sort(out.begin(), out.end(), [](const SourceTime& a, const SourceTime& b) {
    return a.seconds != b.seconds ? a.seconds > b.seconds : a.source < b.source;
  });
  return out;
}

std::string render_compile_times_table(const std::vector<SourceTime>& times) {
  std::string out = "compile times (seconds, slowest first; from .ninja_log):\n";
  if (times.empty()) return out + "  nothing was compiled\n";
  for (const auto& time : times) {
    std::string seconds = seconds_text(time.seconds);
    out += std::string(seconds.size() < 8 ? 8 - seconds.size() : 0, ' ') + seconds + "  " + time.source + "\n";
  }
  return out;
}

std::string render_late_start_hint(const std::vector<SourceTime>& times) {
  if (times.size() < 2) return "";
  const SourceTime& slowest = times.front();
  double last_end = 0;
  for (const auto& time : times) last_end = std::max(last_end, time.started + time.seconds);
  bool waited_for = slowest.started + slowest.seconds >= last_end - 0.5;
  if (!waited_for || slowest.started < 2.0 || slowest.started < 0.1 * slowest.seconds) return "";
  return "hint: the build waited for " + slowest.source + " (" + seconds_text(slowest.seconds) + " s), which started " +
         seconds_text(slowest.started) +
         " s after the first compile:\n  the next build in this directory starts it first (the longest compiles of the "
         "last build start first);\n  a build with nothing to learn from starts the sources that read the most project code "
         "(or torch's headers) first\n";
}

std::string render_slowest_sources(const std::string& variant, const std::vector<SourceTime>& times, size_t limit) {
  if (times.empty()) return "";
  std::string out = variant + ": slowest sources\n";
  for (size_t i = 0; i < times.size() && i < limit; ++i) {
    std::string seconds = seconds_text(times[i].seconds) + " s";
    out += std::string(seconds.size() < 10 ? 10 - seconds.size() : 0, ' ') + seconds + "  " + times[i].source + "\n";
  }
  if (times.size() > limit) {
    out += "  ... and " + std::to_string(times.size() - limit) + " more (build.log, --json)\n";
  }
  return out;
}

}  // namespace kb::builder
