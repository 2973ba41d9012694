// Writing generated files and rendering the project templates (see generated_files.h).
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
  for (const auto& [path, content] : files) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(root / path, ec))) out.push_back(path);
  }
  return out;
}

util::Status write_generated_files(const fs::path& root, const GeneratedFiles& files, bool overwrite,
                                   std::string_view overwrite_flag) {
  if (!overwrite) {
    auto existing = existing_files(root, files);
    if (!existing.empty()) {
      return util::Error(util::ErrorKind::io,
                         "File(s) already exists in target directory: " + util::join(existing, ", ") + "\nUse `" +
                             std::string(overwrite_flag) + "` to overwrite.");
    }
  }
  for (const auto& [path, content] : files) {
    fs::path target = root / path;
    if (auto current = util::read_file(target); current && *current == content) continue;
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    if (ec) {
      return util::Error(util::ErrorKind::io, "Cannot create directory `" + target.parent_path().string() + "`")
          .with_cause(ec.message());
    }
    KB_TRY(util::write_file_atomic(target, content));
  }
  return {};
}

util::Result<std::string> render_project_template(std::string_view path, const templating::Context& context) {
  for (const auto& file : kb_project_templates::embedded_files()) {
    if (file.path != path) continue;
    auto rendered = templating::render_template(file.content, context, "templates/project/" + std::string(path),
                                                templating::Undefined::strict);
    if (!rendered) {
      return util::Error(util::ErrorKind::generic,
                         "internal error: cannot render the template `templates/project/" + std::string(path) + "`")
          .with_cause(rendered.error().message);
    }
    return rendered;
  }
  return util::Error(util::ErrorKind::generic,
                     "internal error: no embedded template `templates/project/" + std::string(path) + "`");
}

util::Status add_project_template(GeneratedFiles& files, const std::string& path, std::string_view template_path,
                                  const templating::Context& context) {
  KB_TRY_ASSIGN(auto rendered, render_project_template(template_path, context));
  files[path] = std::move(rendered);
  return {};
}

}  // namespace kb::codegen
