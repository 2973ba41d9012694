#include "builder/start_order.h"

#include <algorithm>
#include <cstddef>

#include "util/strings.h"

namespace kb::builder {

namespace {

enum class Kind { build, quiet, other };  // quiet: a blank or comment line

struct Item {
  Kind kind = Kind::quiet;
  std::string text;    // the line(s), each with its newline
  std::string output;  // a build statement's first output
};

std::string without_newline(std::string line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return line;
}

bool continues(const std::string& line) {
  // A line ending in an unescaped `$` goes on on the next line.
  size_t dollars = 0;
  for (size_t i = line.size(); i > 0 && line[i - 1] == '$'; --i) ++dollars;
  return dollars % 2 == 1;
}

// The manifest as build statements (the `build` line, its continuations and its indented
// bindings), quiet lines and other top-level lines.
std::vector<Item> parse(const std::string& manifest) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < manifest.size()) {
    size_t end = manifest.find('\n', start);
    end = end == std::string::npos ? manifest.size() : end + 1;
    lines.push_back(manifest.substr(start, end - start));
    start = end;
  }
  std::vector<Item> items;
  for (size_t i = 0; i < lines.size();) {
    std::string bare = without_newline(lines[i]);
    Item item;
    item.text = lines[i];
    if (util::starts_with(bare, "build ")) {
      item.kind = Kind::build;
      item.output = first_output(bare);
      bool open = continues(bare);
      ++i;
      while (i < lines.size()) {
        const std::string& next = lines[i];
        bool indented = !next.empty() && (next[0] == ' ' || next[0] == '\t');
        if (!open && !indented) break;
        item.text += next;
        open = continues(without_newline(next));
        ++i;
      }
      if (!item.text.empty() && item.text.back() != '\n') item.text += '\n';
    } else {
      size_t first = bare.find_first_not_of(" \t");
      item.kind = first == std::string::npos || bare[first] == '#' ? Kind::quiet : Kind::other;
      ++i;
    }
    items.push_back(std::move(item));
  }
  return items;
}

bool is_object(const std::string& output) {
  return util::ends_with(output, ".o") || util::ends_with(output, ".obj");
}

}  // namespace

std::string first_output(const std::string& build_line) {
  if (!util::starts_with(build_line, "build ")) return "";
  std::string out;
  for (size_t i = 6; i < build_line.size(); ++i) {
    char c = build_line[i];
    if (c == '$' && i + 1 < build_line.size()) {
      out += build_line[++i];  // `$ `, `$:`, `$$`
      continue;
    }
    if (c == ' ' || c == ':' || c == '|') break;
    out += c;
  }
  return out;
}

std::set<std::string> object_outputs(const std::string& manifest) {
  std::set<std::string> out;
  for (const auto& item : parse(manifest)) {
    if (item.kind == Kind::build && is_object(item.output)) out.insert(item.output);
  }
  return out;
}

std::optional<StartOrder> longest_first(const std::string& manifest, const std::map<std::string, double>& seconds) {
  std::vector<Item> items = parse(manifest);
  std::vector<size_t> objects;  // indices of the objects' statements, in file order
  std::vector<size_t> timed;    // those of them that have a time
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].kind != Kind::build || !is_object(items[i].output)) continue;
    objects.push_back(i);
    if (seconds.count(items[i].output)) timed.push_back(i);
  }
  if (timed.size() < 2) return std::nullopt;
  const size_t front = objects.front();
  for (size_t i = front; i < timed.back(); ++i) {
    if (items[i].kind == Kind::other) return std::nullopt;
  }
  std::vector<size_t> order = timed;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return seconds.at(items[a].output) > seconds.at(items[b].output);
  });
  // The objects would start in the order they already have: nothing to move.
  std::vector<size_t> starts = order;
  for (size_t i : objects) {
    if (!seconds.count(items[i].output)) starts.push_back(i);
  }
  if (starts == objects) return std::nullopt;
  StartOrder result;
  std::vector<bool> moved(items.size(), false);
  for (size_t i : order) moved[i] = true;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i == front) {
      for (size_t j : order) {
        result.manifest += items[j].text;
        result.first.push_back(items[j].output);
      }
    }
    if (!moved[i]) result.manifest += items[i].text;
  }
  return result;
}

}  // namespace kb::builder
