// The context of a CARD.md template (docs/build-output.md), read from a kernel project:
// repo_id, version, functions (from `__all__`), layers, has_benchmark, upstream, source, license.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/templating/template.h"
#include "config/model.h"
#include "util/result.h"

namespace kb::codegen::card {

// String literals of the first top-level `__all__ = [...]` assignment; none if absent.
std::optional<std::vector<std::string>> python_all_list(std::string_view source);
// Names of top-level `class X...` definitions, in file order.
std::vector<std::string> python_top_level_classes(std::string_view source);

util::Result<templating::Context> card_context(const config::BuildConfig& config,
                                               const std::filesystem::path& kernel_dir);

// Renders <kernel_dir>/CARD.md with the project's context; undefined names are lenient, as in
// Jinja, so a card may test names that only some projects have.
util::Result<std::string> fill_card(const config::BuildConfig& config, const std::filesystem::path& kernel_dir);

}  // namespace kb::codegen::card
