// Cursor pages of tree listings (tree_pages.h).
#include "hub/server/tree_pages.h"

#include "util/hash.h"

namespace kb::hub::server {

namespace {

// The first key after every path beneath directory `dir` ('0' follows '/').
std::string past_directory(const std::string& dir) { return dir + "0"; }

bool beneath(const std::string& path, const std::string& dir) {
  return path.size() > dir.size() && path[dir.size()] == '/' && path.compare(0, dir.size(), dir) == 0;
}

std::string cursor_mac(const std::string& commit_id, char kind, const std::string& path) {
  return util::sha256_hex(commit_id + '\n' + kind + path).substr(0, 16);
}

int cursor_hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

TreePage tree_page(const std::map<std::string, storage::TreeEntry>& tree, const std::string& dir, bool recursive,
                   const std::optional<TreeResume>& after, size_t limit) {
  TreePage page;
  const std::string prefix = dir.empty() ? "" : dir + "/";
  auto it = tree.lower_bound(prefix);
  std::string previous;  // the last file listed (recursive: its directories are listed already)
  if (after) {
    it = after->directory ? tree.lower_bound(past_directory(after->path)) : tree.upper_bound(after->path);
    if (!after->directory) previous = after->path;
  }
  auto inside = [&](auto at) { return at != tree.end() && at->first.compare(0, prefix.size(), prefix) == 0; };
  while (inside(it) && page.items.size() < limit) {
    const std::string& path = it->first;
    if (!recursive) {
      size_t slash = path.find('/', prefix.size());
      if (slash != std::string::npos) {
        std::string directory = path.substr(0, slash);
        page.items.push_back({directory, nullptr});
        it = tree.lower_bound(past_directory(directory));
        continue;
      }
    } else {
      for (size_t slash = path.find('/', prefix.size()); slash != std::string::npos; slash = path.find('/', slash + 1)) {
        std::string directory = path.substr(0, slash);
        if (!beneath(previous, directory)) page.items.push_back({directory, nullptr});
      }
      previous = path;
    }
    page.items.push_back({path, &it->second});
    ++it;
  }
  if (inside(it) && !page.items.empty()) {
    page.next = TreeResume{page.items.back().path, page.items.back().file == nullptr};
  }
  return page;
}

std::string encode_tree_cursor(const std::string& commit_id, const TreeResume& resume) {
  char kind = resume.directory ? 'd' : 'f';
  return std::string(1, kind) + util::to_hex(resume.path) + "." + cursor_mac(commit_id, kind, resume.path);
}

std::optional<TreeResume> decode_tree_cursor(const std::string& commit_id, const std::string& cursor) {
  size_t dot = cursor.find('.');
  if (cursor.empty() || (cursor[0] != 'd' && cursor[0] != 'f') || dot == std::string::npos || (dot - 1) % 2 != 0) {
    return std::nullopt;
  }
  TreeResume resume;
  resume.directory = cursor[0] == 'd';
  for (size_t i = 1; i < dot; i += 2) {
    int high = cursor_hex_digit(cursor[i]);
    int low = cursor_hex_digit(cursor[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    resume.path += static_cast<char>(high * 16 + low);
  }
  if (cursor.substr(dot + 1) != cursor_mac(commit_id, cursor[0], resume.path)) return std::nullopt;
  return resume;
}

std::map<std::string, std::string> directory_oids(const std::map<std::string, storage::TreeEntry>& tree) {
  std::map<std::string, util::Hasher> hashers;
  for (const auto& [path, entry] : tree) {
    for (size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
      auto [at, inserted] = hashers.try_emplace(path.substr(0, slash), util::HashAlgorithm::sha1);
      at->second.update(path.substr(slash + 1) + " " + entry.oid + "\n");
    }
  }
  std::map<std::string, std::string> oids;
  for (auto& [directory, hasher] : hashers) oids.emplace(directory, util::to_hex(hasher.finish()));
  return oids;
}

}  // namespace kb::hub::server
