// Registry of subcommands (see command_registry.h).
#include "cli/command_registry.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "util/exit_code.h"
#include "util/report.h"

namespace kb::cli {

namespace {
std::map<std::string, std::vector<Command>, std::less<>>& registry() {
  static std::map<std::string, std::vector<Command>, std::less<>> commands;
  return commands;
}
}  // namespace

void CommandRegistry::add(std::string_view program, Command command) {
  registry()[std::string(program)].push_back(std::move(command));
}

std::vector<Command> CommandRegistry::commands(std::string_view program) {
  auto it = registry().find(program);
  if (it == registry().end()) return {};
  std::vector<Command> out = it->second;
  std::sort(out.begin(), out.end(), [](const Command& a, const Command& b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
  return out;
}

int report_error(const util::Error& error) {
  util::print_error(error);
  return util::to_int(util::exit_code_for(error));
}

int exit_status(const util::Status& status) {
  if (status) return util::to_int(util::ExitCode::success);
  return report_error(status.error());
}

util::Status require_directory(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) {
    return util::Error(util::ErrorKind::usage, "`" + path + "` is not a directory");
  }
  return {};
}

}  // namespace kb::cli
