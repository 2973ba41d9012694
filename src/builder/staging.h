// Filling a staging directory with the package files of a variant (docs/build-output.md)
// and replacing the final variant directory atomically.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "util/result.h"

namespace kb::builder {

// Copies from `package_dir` (recursive, relative paths kept): every `*.py`, `*.pyi` and file
// whose extension is in `data_extensions`; nothing under `__pycache__`, no `*.pyc`.
// `copy_everything` (noarch variants) copies every file except `*.pyc` / `__pycache__`.
util::Status copy_package_files(const std::filesystem::path& package_dir, const std::filesystem::path& staging,
                                const std::vector<std::string>& data_extensions, bool copy_everything);

// Makes every file and directory under `root` user-writable.
void make_writable(const std::filesystem::path& root);

// Replaces `target` with `staging` (delete, then rename; the old tree is first renamed aside so
// the swap itself is a rename).
util::Status replace_directory(const std::filesystem::path& staging, const std::filesystem::path& target);

}  // namespace kb::builder
