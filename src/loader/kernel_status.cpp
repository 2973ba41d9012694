// kernel-status.toml parsing with upstream's error texts.
#include "loader/kernel_status.h"

#include <toml++/toml.h>

namespace kb::loader {

util::Result<Redirect> parse_kernel_status(std::string_view text) {
  toml::table table;
  try {
    table = toml::parse(text);
  } catch (const toml::parse_error& e) {
    return util::Error(util::ErrorKind::config,
                       std::string("Cannot parse kernel-status.toml: ") + std::string(e.description()));
  }
  auto kind = table["kind"].value<std::string>();
  if (!kind || kind->empty()) {
    return util::Error(util::ErrorKind::config, "kernel-status.toml must contain a 'kind' field");
  }
  if (*kind != "redirect") {
    return util::Error(util::ErrorKind::config, "Unknown kernel status kind: '" + *kind + "'");
  }
  auto destination = table["destination"].value<std::string>();
  if (!destination) {
    return util::Error(util::ErrorKind::config, "kernel-status.toml must contain a 'destination' field");
  }
  Redirect redirect;
  redirect.destination = *destination;
  if (auto revision = table["revision"].value<std::string>()) redirect.revision = *revision;
  return redirect;
}

}  // namespace kb::loader
