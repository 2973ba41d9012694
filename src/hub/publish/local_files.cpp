// Gathering and checking what upload sends (see local_files.h).
#include "hub/publish/local_files.h"

#include <algorithm>

#include "metadata/digest.h"
#include "metadata/variant_check.h"

namespace kb::hub::publish {

namespace fs = std::filesystem;
using util::Error;
using util::ErrorKind;
using util::Result;

namespace {

constexpr int kMaxLinkHops = 40;  // as the kernel's ELOOP limit

bool inside(const fs::path& root, const fs::path& path) {
  auto [r, p] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return r == root.end();
}

Error unresolvable(const fs::path& link, const std::error_code& ec) {
  return Error(ErrorKind::io, "Cannot resolve the symlink `" + link.string() + "`: " + ec.message());
}

// Where the link at `link` ends, following chains; a dangling chain ends at the first path that
// does not exist.
Result<fs::path> final_target(const fs::path& link) {
  std::error_code ec;
  fs::path resolved = fs::canonical(link, ec);
  if (!ec) return resolved;
  fs::path at = link;
  for (int hop = 0; hop < kMaxLinkHops; ++hop) {
    fs::path next = fs::read_symlink(at, ec);
    if (ec) return unresolvable(link, ec);
    if (next.is_relative()) next = at.parent_path() / next;
    // Resolves every link in the part that exists; a dangling last component stays as it is.
    next = fs::weakly_canonical(next, ec);
    if (ec) return unresolvable(link, ec);
    if (!fs::is_symlink(next, ec)) return next;
    at = next;
  }
  return unresolvable(link, std::make_error_code(std::errc::too_many_symbolic_link_levels));
}

}  // namespace

Result<fs::path> resolve_inside(const fs::path& kernel_dir, const fs::path& path) {
  std::error_code ec;
  fs::path base = fs::absolute(kernel_dir, ec).lexically_normal();
  if (ec) return Error(ErrorKind::io, "Cannot resolve the kernel directory `" + kernel_dir.string() + "`: " + ec.message());
  fs::path root = fs::canonical(base, ec);
  if (ec) return Error(ErrorKind::io, "Cannot resolve the kernel directory `" + kernel_dir.string() + "`: " + ec.message());
  fs::path absolute = fs::absolute(path, ec).lexically_normal();
  fs::path relative = absolute.lexically_relative(base);
  if (ec || relative.empty() || *relative.begin() == "..") {
    return Error(ErrorKind::generic, "`" + path.string() + "` is not under the kernel directory `" + base.string() + "`");
  }
  fs::path at = base;
  for (const auto& part : relative) {
    if (part == ".") continue;
    at /= part;
    if (!fs::is_symlink(at, ec)) continue;
    auto target = final_target(at);
    if (!target) return std::move(target).error();
    if (!inside(root, *target)) {
      return Error(ErrorKind::integrity, "Refusing to upload: the symlink `" + at.lexically_relative(base).generic_string() +
                                             "` leads outside the kernel directory `" + root.string() + "`, to `" +
                                             target->string() + "`")
          .with_hint("Upload follows a symlink only when it stays inside the kernel directory (the Hub stores no "
                     "symlinks, so a link's content is published). Remove the link, or copy the file into the kernel "
                     "directory if it belongs to the kernel.");
    }
  }
  fs::path resolved = fs::weakly_canonical(absolute, ec);
  if (ec) return unresolvable(absolute, ec);
  return resolved;
}

Result<LocalFiles> collect_local_files(const fs::path& kernel_dir, const metadata::DiscoveredVariants& found,
                                       const std::function<void(const std::string&)>& warn) {
  LocalFiles out;
  std::error_code ec;
  auto present = [&ec](const fs::path& p) { return fs::is_symlink(p, ec) || fs::exists(p, ec); };

  // Not covered by any digest: only the symlink rule guards these.
  fs::path card = found.root / "CARD.md";
  if (present(card)) {
    auto resolved = resolve_inside(kernel_dir, card);
    if (!resolved) return std::move(resolved).error();
    if (fs::is_regular_file(*resolved, ec)) out.card = LocalFile{"README.md", *resolved};
  }
  fs::path benchmarks = kernel_dir / "benchmarks";
  if (present(benchmarks)) {
    auto dir = resolve_inside(kernel_dir, benchmarks);
    if (!dir) return std::move(dir).error();
    if (fs::is_directory(*dir, ec)) {
      for (const auto& entry : fs::directory_iterator(benchmarks, ec)) {
        std::string name = entry.path().filename().string();
        if (!is_benchmark_script(name)) continue;
        auto resolved = resolve_inside(kernel_dir, entry.path());
        if (!resolved) return std::move(resolved).error();
        if (fs::is_regular_file(*resolved, ec)) out.benchmarks.push_back({"benchmarks/" + name, *resolved});
      }
      if (ec) return Error(ErrorKind::io, "Cannot list `" + benchmarks.string() + "`: " + ec.message());
    }
  }

  for (const auto& variant : found.variants) {
    // Every symlink in the variant first, so that nothing outside is read, not even to hash it.
    auto dir = resolve_inside(kernel_dir, variant.path);
    if (!dir) return std::move(dir).error();
    for (auto it = fs::recursive_directory_iterator(variant.path, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      std::error_code entry_ec;
      if (!it->is_symlink(entry_ec)) continue;
      auto resolved = resolve_inside(kernel_dir, it->path());
      if (!resolved) return std::move(resolved).error();
      if (fs::is_directory(*resolved, entry_ec) && warn) {
        fs::path base = fs::absolute(kernel_dir).lexically_normal();
        warn("not uploading the symlink `" + fs::absolute(it->path()).lexically_normal().lexically_relative(base).generic_string() +
             "` to a directory: a variant's digest covers only files and links to files");
      }
    }
    if (ec) return Error(ErrorKind::io, "Cannot list `" + variant.path.string() + "`: " + ec.message());

    auto checked = metadata::check_variant(variant, {.require_digest = true});
    if (!checked) {
      auto error = std::move(checked).error().context("Refusing to upload: variant `" + variant.name +
                                                      "` does not pass the check-builds rules");
      if (error.hints.empty()) {
        error.hints.push_back("Upload publishes only the files a variant's metadata.json digest lists. Rebuild the "
                              "variant (or remove what was added to it after the build); `kernel-builder check-builds` "
                              "runs the same check.");
      }
      return error;
    }
    out.metadata.push_back(std::move(*checked));
    for (const auto& relative : metadata::list_variant_files(variant.path)) {
      fs::path resolved = fs::canonical(variant.path / relative, ec);
      if (ec) return unresolvable(variant.path / relative, ec);
      out.variant_files.push_back({"build/" + variant.name + "/" + relative, resolved});
    }
  }
  return out;
}

}  // namespace kb::hub::publish
