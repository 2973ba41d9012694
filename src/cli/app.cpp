// Program entry shared by the CLIs (see app.h).
#include "cli/app.h"

#include <exception>
#include <iostream>

#include "cli/command_registry.h"
#include "kb_git_version.h"
#include "util/exit_code.h"
#include "util/report.h"
#include "util/strings.h"

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

namespace {

// "kernel-builder build": the command path of a (sub)command, for messages.
std::string command_path(const CLI::App* app) {
  std::string path = app->get_name();
  for (const CLI::App* parent = app->get_parent(); parent; parent = parent->get_parent()) {
    path = parent->get_name() + " " + path;
  }
  return path;
}

std::vector<const CLI::App*> all_subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

// The deepest selected (sub)command that was left with arguments it does not know.
const CLI::App* app_with_extras(const CLI::App& root) {
  std::vector<const CLI::App*> chain{&root};
  while (!chain.back()->get_subcommands().empty()) chain.push_back(chain.back()->get_subcommands().front());
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if (!(*it)->remaining(false).empty()) return *it;
  }
  return nullptr;
}

}  // namespace

std::optional<util::Error> unknown_argument_error(const CLI::App& root) {
  const CLI::App* app = app_with_extras(root);
  if (!app) return std::nullopt;
  std::string word = app->remaining(false).front();
  std::string where = command_path(app);
  std::vector<std::string> candidates;
  std::string what;
  if (word.starts_with("-")) {
    what = "option";
    word = word.substr(0, word.find('='));
    for (const CLI::Option* option : app->get_options()) {
      for (const auto& name : option->get_lnames()) candidates.push_back("--" + name);
      for (const auto& name : option->get_snames()) candidates.push_back("-" + name);
    }
  } else if (!all_subcommands(*app).empty() && app->get_subcommands().empty()) {
    what = "command";
    for (const CLI::App* sub : all_subcommands(*app)) {
      if (!sub->get_group().empty()) candidates.push_back(sub->get_name());
    }
  } else {
    return util::Error(util::ErrorKind::usage, "unexpected argument `" + word + "` for `" + where + "`")
        .with_hint("run `" + where + " --help` for its arguments");
  }
  util::Error error(util::ErrorKind::usage, "unknown " + what + " `" + word + "` for `" + where + "`");
  if (auto close = util::did_you_mean(word, candidates)) return std::move(error).with_hint("did you mean `" + *close + "`?");
  return std::move(error).with_hint("run `" + where + " --help` for its " + what + "s");
}

int run_program(const ProgramInfo& info, int argc, char** argv) {
  CLI::App app(info.description, info.name);
  current_root = &app;
  app.require_subcommand(0, 1);
  app.footer(info.footer + "\n\n" + util::exit_status_help(info.failure_meaning));
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
  } catch (const CLI::ExtrasError& e) {
    if (auto error = unknown_argument_error(app)) return report_error(*error);
    return app.exit(e) == 0 ? 0 : util::to_int(util::ExitCode::usage);
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
