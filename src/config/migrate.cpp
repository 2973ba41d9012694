// Legacy-to-edition-5 migration (see migrate.h).
#include "config/migrate.h"

#include "config/reader.h"
#include "config/toml_comments.h"
#include "config/writer.h"

namespace kb::config {

util::Result<std::optional<std::string>> migrate_build_toml(std::string_view text, std::string_view file_name) {
  ParseOutcome outcome = parse_build_toml(text, file_name);
  if (!outcome.parsed) {
    util::Error error(util::ErrorKind::config, "Cannot update build configuration");
    for (const auto& diagnostic : outcome.errors) {
      std::string rendered = render_diagnostic(diagnostic, text, "");
      if (!rendered.empty() && rendered.back() == '\n') rendered.pop_back();
      error.causes.push_back(std::move(rendered));
    }
    return error;
  }
  if (outcome.parsed->edition == Edition::v5) return std::optional<std::string>();
  if (outcome.parsed->license_missing) {
    return util::Error(util::ErrorKind::config, "Cannot update build configuration")
        .with_cause("Cannot migrate configuration: \"The `license` key is required in the `general` section\"")
        .with_hint("add a license to [general], e.g. `license = \"Apache-2.0\"`, then run `kernel-builder update-build` again");
  }
  return std::optional<std::string>(to_toml(outcome.parsed->config, extract_comments(text)));
}

}  // namespace kb::config
