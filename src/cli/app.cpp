// Program entry shared by the CLIs (see app.h).
#include "cli/app.h"

#include <exception>
#include <iostream>

#include "cli/command_registry.h"
#include "kb_git_version.h"
#include "util/exit_code.h"
#include "util/report.h"

namespace kb::cli {

namespace {
const CLI::App* current_root = nullptr;
}

std::string builder_version() { return KB_VERSION; }
std::string builder_commit() { return KB_GIT_COMMIT; }
bool builder_dirty() { return KB_GIT_DIRTY; }

std::string version_string(std::string_view program) {
  std::string out = std::string(program) + " " + builder_version();
  std::string commit = builder_commit();
  if (!commit.empty()) out += " (" + commit + (builder_dirty() ? "-dirty" : "") + ")";
  return out;
}

const CLI::App& root_app() { return *current_root; }

int run_program(const ProgramInfo& info, int argc, char** argv) {
  CLI::App app(info.description, info.name);
  current_root = &app;
  app.require_subcommand(0, 1);
  app.footer(info.footer + "\n\n" + util::exit_status_help());
  app.set_version_flag("-V,--version", version_string(info.name));
  app.get_formatter()->column_width(34);

  Action selected;
  for (const auto& command : CommandRegistry::commands(info.name)) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    if (command.hidden) sub->group("");
    Action action = command.setup(*sub);
    sub->callback([&selected, action] { selected = action; });
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : util::to_int(util::ExitCode::usage);
  }
  if (!selected) {  // no command: a usage error, so the help goes to stderr
    std::cerr << app.help();
    return util::to_int(util::ExitCode::usage);
  }
  try {
    return selected();
  } catch (const std::exception& e) {
    util::print_error(util::Error(std::string("internal error: ") + e.what()));
    return util::to_int(util::ExitCode::failure);
  }
}

}  // namespace kb::cli
