// join_inside / check_inside (see cache_path.h).
#include "loader/cache_path.h"

#include <string>

namespace kb::loader {
namespace {

namespace fs = std::filesystem;

util::Error outside(const fs::path& root, const fs::path& path, const std::string& why) {
  return util::Error(util::ErrorKind::invalid,
                     "Refusing to write `" + path.string() + "`: " + why + " the cache `" + root.string() + "`")
      .with_hint("nothing was written; a Hub, lockfile or redirect named a path outside the cache");
}

// `path` strictly below `root`, both already normalised (lexically or canonically).
bool below(const fs::path& root, const fs::path& path) {
  auto r = root.begin();
  auto p = path.begin();
  for (; r != root.end(); ++r, ++p) {
    if (r->empty() && std::next(r) == root.end()) break;  // trailing separator of root
    if (p == path.end() || *p != *r) return false;
  }
  return p != path.end() && !p->empty();
}

}  // namespace

util::Status check_inside(const fs::path& root, const fs::path& path) {
  const fs::path lexical_root = root.lexically_normal();
  const fs::path lexical = path.lexically_normal();
  if (!below(lexical_root, lexical)) return outside(root, path, "it lies outside");

  std::error_code ec;
  const fs::path real_root = fs::weakly_canonical(root, ec);
  if (ec) return outside(root, path, "cannot resolve");
  // The parents as they exist now: a symlinked folder on the way may lead anywhere.
  fs::path real = fs::weakly_canonical(lexical.parent_path(), ec);
  if (ec) return outside(root, path, "cannot resolve the folders of");
  real /= lexical.filename();
  if (fs::is_symlink(real, ec)) {
    // Writing through a link writes its target, even a dangling one.
    fs::path target = fs::read_symlink(real, ec);
    if (ec) return outside(root, path, "cannot read the link");
    real = fs::weakly_canonical(target.is_absolute() ? target : real.parent_path() / target, ec);
    if (ec) return outside(root, path, "cannot resolve the link");
  }
  if (!below(real_root, real)) return outside(root, path, "after resolving symlinks it lies outside");
  return {};
}

util::Result<fs::path> join_inside(const fs::path& root, std::string_view relative) {
  return join_inside(root, root, relative);
}

util::Result<fs::path> join_inside(const fs::path& root, const fs::path& base, std::string_view relative) {
  auto refuse = [&](const std::string& why) {
    return util::Error(util::ErrorKind::invalid,
                       "Refusing to write `" + std::string(relative) + "` under `" + base.string() + "`: " + why);
  };
  if (relative.empty()) return refuse("the path is empty");
  if (relative.front() == '/') return refuse("the path is absolute");
  if (relative.find('\\') != std::string_view::npos) return refuse("backslashes are not allowed");
  if (relative.find('\0') != std::string_view::npos) return refuse("NUL is not allowed");
  size_t start = 0;
  while (true) {
    size_t end = relative.find('/', start);
    std::string_view part = relative.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (part.empty() || part == "." || part == "..") return refuse("empty, '.' and '..' components are not allowed");
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  fs::path joined = base / fs::path(std::string(relative));
  KB_TRY(check_inside(root, joined));
  return joined;
}

}  // namespace kb::loader
