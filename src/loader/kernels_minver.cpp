// release_version and check_kernels_minver (kernels_minver.h).
#include "loader/kernels_minver.h"

#include <regex>

namespace kb::loader {

std::optional<config::Version> release_version(std::string_view text) {
  // epoch! release [pre] [post] [dev] [+local], PEP 440's spellings, case-insensitive.
  static const std::regex pep440(
      R"(^\s*v?(?:[0-9]+!)?([0-9]+(?:\.[0-9]+)*))"
      R"((?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?)"
      R"((?:-[0-9]+|[-_.]?(?:post|rev|r)[-_.]?[0-9]*)?)"
      R"((?:[-_.]?dev[-_.]?[0-9]*)?)"
      R"((?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?\s*$)",
      std::regex::icase);
  std::match_results<std::string_view::const_iterator> match;
  if (!std::regex_match(text.begin(), text.end(), match, pep440)) return std::nullopt;
  auto version = config::Version::parse(match[1].str());
  if (!version) return std::nullopt;
  return *version;
}

util::Status check_kernels_minver(const metadata::Metadata& metadata, const std::string& variant,
                                  const std::string& installed) {
  if (!metadata.kernels_minver || installed.empty()) return {};
  auto required = config::Version::parse(*metadata.kernels_minver);
  auto release = release_version(installed);
  if (!required || !release || *release >= *required) return {};
  return util::Error(util::ErrorKind::generic,
                     "Kernel '" + metadata.name + "' variant '" + variant + "' requires kernels>=" +
                         *metadata.kernels_minver + ", but version " + installed +
                         " is installed. Upgrade with: pip install --upgrade kernels");
}

}  // namespace kb::loader
