// Staging and swapping variant directories (see staging.h).
#include "builder/staging.h"

#include <fcntl.h>
#include <stdio.h>

#include <algorithm>

#include "util/strings.h"

namespace kb::builder {

namespace fs = std::filesystem;

util::Status copy_package_files(const fs::path& package_dir, const fs::path& staging,
                                const std::vector<std::string>& data_extensions, bool copy_everything) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(package_dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (it->is_directory(ec)) {
      if (name == "__pycache__") it.disable_recursion_pending();
      continue;
    }
    if (!fs::is_regular_file(it->path(), ec) || util::ends_with(name, ".pyc")) continue;
    auto dot = name.rfind('.');
    std::string ext = dot == std::string::npos ? "" : name.substr(dot + 1);
    bool wanted = copy_everything || ext == "py" || ext == "pyi" ||
                  std::find(data_extensions.begin(), data_extensions.end(), ext) != data_extensions.end();
    if (!wanted) continue;
    fs::path target = staging / it->path().lexically_relative(package_dir);
    fs::create_directories(target.parent_path(), ec);
    fs::copy_file(it->path(), target, fs::copy_options::overwrite_existing, ec);
    if (ec) {
      return util::Error(util::ErrorKind::io, "Cannot copy `" + it->path().string() + "` to `" + target.string() + "`")
          .with_cause(ec.message());
    }
  }
  if (ec) return util::Error(util::ErrorKind::io, "Cannot read `" + package_dir.string() + "`").with_cause(ec.message());
  return {};
}

void make_writable(const fs::path& root) {
  std::error_code ec;
  fs::permissions(root, fs::perms::owner_all, fs::perm_options::add, ec);
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    auto perms = it->is_directory(ec) ? fs::perms::owner_all : fs::perms::owner_read | fs::perms::owner_write;
    fs::permissions(it->path(), perms, fs::perm_options::add | fs::perm_options::nofollow, ec);
  }
}

util::Status replace_directory(const fs::path& staging, const fs::path& target) {
  std::error_code ec;
  fs::path aside = target.parent_path() / (".old-" + target.filename().string());
  fs::remove_all(aside, ec);
  if (fs::exists(target)) {
    make_writable(target);
    // Swap in one step (renameat2 RENAME_EXCHANGE): at every moment `target` is either the old
    // complete variant or the new one, even if the build is killed right here.
    if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
      fs::remove_all(staging, ec);  // now holds the old variant
      return {};
    }
    // Filesystems without RENAME_EXCHANGE: move the old tree aside first.
    fs::rename(target, aside, ec);
    if (ec) return util::Error(util::ErrorKind::io, "Cannot replace `" + target.string() + "`").with_cause(ec.message());
  }
  fs::rename(staging, target, ec);
  if (ec) return util::Error(util::ErrorKind::io, "Cannot move `" + staging.string() + "` to `" + target.string() + "`")
                 .with_cause(ec.message());
  fs::remove_all(aside, ec);
  return {};
}

}  // namespace kb::builder
