// Self-registering subcommands. Each command file defines a static RegisterCommand; the program's
// app (app.h) builds its CLI11 tree from the registry, so commands stay one file each.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "util/result.h"

// A command file's own names (its Options, setup and registration, its helpers) live in
//   namespace kb::cli { namespace { namespace KB_UNITY_ID { ... } } }
// A unity build (KB_UNITY, cmake/Unity.cmake) compiles several command files in one translation
// unit and defines KB_UNITY_ID to a name of each file's own, so equal names in two files do not
// clash; compiled one file a unit, it is this one name.
#ifndef KB_UNITY_ID
#define KB_UNITY_ID command_file
#endif

namespace kb::cli {

// The action run when the subcommand is selected; returns the exit status (util/exit_code.h).
using Action = std::function<int()>;

struct Command {
  std::string name;
  std::string description;
  // Declares the subcommand's options and positionals on `app` and returns its action. Option
  // storage must live in the action (e.g. a shared_ptr to an options struct captured by it).
  std::function<Action(CLI::App& app)> setup;
  bool hidden = false;
  int order = 100;  // position in --help; ties broken by name
};

class CommandRegistry {
 public:
  static void add(std::string_view program, Command command);
  // Commands of `program`, sorted by (order, name).
  static std::vector<Command> commands(std::string_view program);
};

struct RegisterCommand {
  RegisterCommand(std::string_view program, Command command) {
    CommandRegistry::add(program, std::move(command));
  }
};

// Prints the error chain to stderr and returns the exit status for it (util::exit_code_for).
int report_error(const util::Error& error);
// 0 on success, else report_error.
int exit_status(const util::Status& status);

// A KERNEL_DIR/TARGET_DIR argument: an existing directory, else the usage error
// "`<path>` is not a directory" (exit status 2 in every command).
util::Status require_directory(const std::string& path);

}  // namespace kb::cli
