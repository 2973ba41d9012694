// Writing generated files and template substitution (see generated_files.h).
#include "codegen/generated_files.h"

#include "util/embedded.h"
#include "util/fs.h"
#include "util/strings.h"

namespace kb_project_templates {
const std::vector<kb::util::EmbeddedFile>& embedded_files();
}

namespace kb::codegen {

namespace fs = std::filesystem;

std::vector<std::string> existing_files(const fs::path& root, const GeneratedFiles& files) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& [path, content] : files) {
    if (fs::exists(root / path, ec)) out.push_back(path);
  }
  return out;
}

util::Status write_generated_files(const fs::path& root, const GeneratedFiles& files, bool overwrite,
                                   const std::string& overwrite_flag) {
  if (!overwrite) {
    auto existing = existing_files(root, files);
    if (!existing.empty()) {
      return util::Error(util::ErrorKind::io, "File(s) already exists in target directory: " +
                                                  util::join(existing, ", ") + "\nUse `" + overwrite_flag +
                                                  "` to overwrite.");
    }
  }
  for (const auto& [path, content] : files) {
    fs::path target = root / path;
    if (auto current = util::read_file(target); current && *current == content) continue;
    KB_TRY(util::write_file_atomic(target, content));
  }
  return {};
}

std::string substitute(std::string_view text, const std::map<std::string, std::string>& values) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '@') {
      size_t end = text.find('@', i + 1);
      if (end != std::string_view::npos) {
        auto it = values.find(std::string(text.substr(i + 1, end - i - 1)));
        if (it != values.end()) {
          out += it->second;
          i = end + 1;
          continue;
        }
      }
    }
    out += text[i++];
  }
  return out;
}

std::string project_template(std::string_view path) {
  for (const auto& file : kb_project_templates::embedded_files()) {
    if (file.path == path) return std::string(file.content);
  }
  return {};
}

}  // namespace kb::codegen
