// What `upload` sends, gathered and checked before anything is sent (docs/hub-security.md,
// "Upload"): every variant passes the check-builds rules with a digest required, and no symlink
// on the way to a file it sends (or anywhere in a variant) leads outside the kernel directory.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hub/publish/operations.h"
#include "metadata/discovery.h"
#include "metadata/metadata.h"
#include "util/result.h"

namespace kb::hub::publish {

// Where `path` (lexically under `kernel_dir`) really is, when every symlink on the way (each
// component that is a link, followed through chains to its end, dangling ones as far as they go)
// resolves inside `kernel_dir` itself canonicalised. A link that leads outside: an
// ErrorKind::integrity error naming the link (relative to `kernel_dir`) and its final target.
util::Result<std::filesystem::path> resolve_inside(const std::filesystem::path& kernel_dir,
                                                   const std::filesystem::path& path);

struct LocalFiles {
  std::optional<LocalFile> card;            // <variants root>/CARD.md -> README.md on main
  std::vector<LocalFile> benchmarks;        // benchmarks/benchmark*.py
  std::vector<LocalFile> variant_files;     // build/<variant>/<relative path>
  std::vector<metadata::Metadata> metadata; // per variant, in `found.variants` order
};

// Collects the files of an upload of `found` (discovered in `kernel_dir`). Local paths are the
// resolved ones, so what was checked is what is read. Files under a variant are exactly the ones
// its digest walk sees (metadata::list_variant_files); a symlink to a directory inside a variant
// is not entered by that walk, so it is reported through `warn` and not uploaded.
util::Result<LocalFiles> collect_local_files(const std::filesystem::path& kernel_dir,
                                             const metadata::DiscoveredVariants& found,
                                             const std::function<void(const std::string&)>& warn);

}  // namespace kb::hub::publish
