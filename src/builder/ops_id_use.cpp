// Which sources see the ops id (see ops_id_use.h).
#include "builder/ops_id_use.h"

#include <cctype>
#include <set>

#include "codegen/ops_py.h"
#include "util/fs.h"
#include "util/prelude.h"
#include "util/strings.h"

namespace kb::builder {

namespace {

// The text with comments and string/character literals blanked (newlines kept).
std::string code_only(const std::string& text) {
  std::string out = text;
  size_t i = 0;
  auto blank = [&](size_t from, size_t to) {
    for (size_t k = from; k < to && k < out.size(); ++k) {
      if (out[k] != '\n') out[k] = ' ';
    }
  };
  while (i < text.size()) {
    if (text.compare(i, 2, "//") == 0) {
      size_t end = text.find('\n', i);
      if (end == std::string::npos) end = text.size();
      blank(i, end);
      i = end;
    } else if (text.compare(i, 2, "/*") == 0) {
      size_t end = text.find("*/", i + 2);
      end = end == std::string::npos ? text.size() : end + 2;
      blank(i, end);
      i = end;
    } else if (text[i] == '"' || text[i] == '\'') {
      char quote = text[i];
      size_t k = i + 1;
      while (k < text.size() && text[k] != quote && text[k] != '\n') k += text[k] == '\\' ? 2 : 1;
      blank(i, std::min(k + 1, text.size()));
      i = k + 1;
    } else {
      ++i;
    }
  }
  return out;
}

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

OpsIdScan scan_ops_id_text(const std::string& text, const std::string& macro, bool with_registration_macros) {
  static const std::set<std::string> registration = {"TORCH_LIBRARY_EXPAND", "TORCH_LIBRARY_IMPL_EXPAND",
                                                     "REGISTER_EXTENSION"};
  OpsIdScan scan;
  std::string code = code_only(text);
  size_t i = 0;
  auto skip_space = [&](size_t at) {
    while (at < code.size() && std::isspace(static_cast<unsigned char>(code[at]))) ++at;
    return at;
  };
  auto identifier_at = [&](size_t at) {
    size_t end = at;
    while (end < code.size() && identifier_char(code[end])) ++end;
    return code.substr(at, end - at);
  };
  while (i < code.size()) {
    if (!identifier_char(code[i]) || (i > 0 && identifier_char(code[i - 1]))) {
      ++i;
      continue;
    }
    std::string word = identifier_at(i);
    i += word.size();
    if (word == macro) {
      scan.other_use = true;
    } else if (with_registration_macros && registration.count(word)) {
      size_t open = skip_space(i);
      if (open >= code.size() || code[open] != '(') continue;  // e.g. #ifdef REGISTER_EXTENSION
      size_t argument = skip_space(open + 1);
      std::string name = identifier_at(argument);
      size_t after = skip_space(argument + name.size());
      if (name != macro || after >= code.size() || (code[after] != ',' && code[after] != ')')) {
        scan.other_use = true;
        continue;
      }
      scan.registers = true;
      if (word == "REGISTER_EXTENSION") ++scan.register_extension;
      i = after;
    }
  }
  return scan;
}

void merge_scan(OpsIdScan& into, const OpsIdScan& header) {
  into.other_use = into.other_use || header.other_use;
  into.registers = into.registers || header.registers;
  into.register_extension += header.register_extension;
}

OpsIdUse plan_ops_id_use(const std::vector<std::pair<std::string, OpsIdScan>>& scans, bool unit_possible) {
  OpsIdUse use;
  bool other_use = false;
  int register_extension = 0;
  for (const auto& [source, scan] : scans) {
    other_use = other_use || scan.other_use;
    register_extension += scan.register_extension;
  }
  // One REGISTER_EXTENSION: kb_ops_id.cpp's PyInit calls the module it defines.
  use.unit = unit_possible && !other_use && register_extension == 1;
  if (use.unit) return use;
  for (const auto& [source, scan] : scans) {
    if (scan.other_use || scan.registers) use.sources.push_back(source);
  }
  return use;
}

std::vector<std::pair<std::string, OpsIdScan>> scan_ops_id_sources(ProjectIncludeWalker& walker,
                                                                   const std::vector<std::string>& sources,
                                                                   const std::string& macro,
                                                                   bool with_registration_macros) {
  static const auto builder_registration = codegen::render_registration_h();
  std::vector<std::pair<std::string, OpsIdScan>> out;
  for (const auto& source : sources) {
    if (!compiled_source(source)) continue;
    OpsIdScan scan;
    walker.walk(walker.project() / source, [&](const fs::path& file, const std::string& text, int depth) {
      if (depth > 0 && file.filename() == codegen::kRegistrationHeader) {
        // A copy of the builder's own header (create-pyproject writes one) is the generated one.
        if (!builder_registration || text != *builder_registration) scan.other_use = true;
        return false;
      }
      merge_scan(scan, scan_ops_id_text(text, macro, with_registration_macros));
      return true;
    });
    out.emplace_back(source, scan);
  }
  return out;
}

}  // namespace kb::builder
