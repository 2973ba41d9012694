// Error-chain rendering shared by every CLI.
#include "util/report.h"

#include <cstdlib>
#include <unistd.h>

namespace kb::util {

bool colour_enabled(std::FILE* stream) {
  const char* no_colour = std::getenv("NO_COLOR");
  if (no_colour != nullptr && no_colour[0] != '\0') return false;
  return isatty(fileno(stream)) != 0;
}

namespace {
std::string paint(const std::string& text, const char* code, bool colour) {
  if (!colour) return text;
  return std::string("\x1b[") + code + "m" + text + "\x1b[0m";
}
}  // namespace

std::string render_error(const Error& error, bool colour) {
  std::string out = paint("error", "1;31", colour) + ": " + error.message + "\n";
  for (const auto& cause : error.causes) out += paint("Caused by", "1", colour) + ": " + cause + "\n";
  for (const auto& hint : error.hints) out += paint("hint", "1;36", colour) + ": " + hint + "\n";
  return out;
}

void print_error(const Error& error) {
  std::fputs(render_error(error, colour_enabled(stderr)).c_str(), stderr);
}

void print_warning(const std::string& message) {
  std::string prefix = colour_enabled(stderr) ? "\x1b[1;33mwarning\x1b[0m" : "warning";
  std::fprintf(stderr, "%s: %s\n", prefix.c_str(), message.c_str());
}

}  // namespace kb::util
