// Kernel-name validation (see kernel_name.h).
#include "config/kernel_name.h"

#include <string>

namespace kb::config {

namespace {
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

bool is_valid_kernel_name(std::string_view name) {
  if (name.size() < 2 || !is_lower(name.front())) return false;
  if (!is_lower(name.back()) && !is_digit(name.back())) return false;
  for (char c : name) {
    if (!is_lower(c) && !is_digit(c) && c != '-') return false;
  }
  return true;
}

util::Status validate_kernel_name(std::string_view name) {
  if (is_valid_kernel_name(name)) return {};
  return util::Error(util::ErrorKind::config,
                     "Invalid kernel name `" + std::string(name) +
                         "`. Name must:\n"
                         "- Start with a lowercase letter (a-z)\n"
                         "- Contain only lowercase letters, digits, and dashes\n"
                         "- End with a lowercase letter or digit\n"
                         "- Be at least 2 characters long\n"
                         "Examples: `my-kernel`, `relu2d`, `flash-attention`");
}

}  // namespace kb::config
