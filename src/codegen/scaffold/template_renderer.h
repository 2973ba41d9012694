// The scaffold's small template language (templates/init/): `{{var}}` placeholders, line blocks
// `{{#flag}}` ... `{{/flag}}` kept only when the flag is set, and `{% raw %}` ... `{% endraw %}`
// copied verbatim (the CARD.md template keeps its Jinja syntax for `fill-card`).
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kb::scaffold {

struct TemplateContext {
  std::map<std::string, std::string> values;  // {{name}} -> value
  std::set<std::string> flags;                // {{#flag}} blocks that are kept
};

// Renders `text`. Unknown placeholders and unbalanced blocks are errors naming `template_name`,
// so a typo in a template fails the tests instead of leaking into a user's project. A newline
// directly after a block or raw tag is dropped (Jinja's trim_blocks).
util::Result<std::string> render_template(std::string_view template_name, std::string_view text,
                                          const TemplateContext& context);

// Substitutes `{name}` in template file paths, e.g. `{n}_cuda/{n}.cu` -> `relu_cuda/relu.cu`.
std::string render_path(std::string_view path, const std::map<std::string, std::string>& values);

}  // namespace kb::scaffold
