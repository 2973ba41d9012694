// Rendering of errors and warnings for people: "error: ...", "Caused by: ...", "hint: ...".
// Colour only on a terminal and never when NO_COLOR is set.
#pragma once

#include <cstdio>
#include <string>

#include "util/result.h"

namespace kb::util {

bool colour_enabled(std::FILE* stream);

// Plain-text rendering (no colour), one line per element, trailing newline.
std::string render_error(const Error& error, bool colour = false);

void print_error(const Error& error);            // to stderr
void print_warning(const std::string& message);  // "warning: <message>" to stderr

}  // namespace kb::util
