// Registry of subcommands (see command_registry.h).
#include "cli/command_registry.h"

#include <algorithm>
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
  return util::to_int(error.kind == util::ErrorKind::usage ? util::ExitCode::usage : util::ExitCode::failure);
}

int exit_status(const util::Status& status) {
  if (status) return util::to_int(util::ExitCode::success);
  return report_error(status.error());
}

}  // namespace kb::cli
