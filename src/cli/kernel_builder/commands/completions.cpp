// `kernel-builder completions <bash|zsh|fish|elvish|powershell>`: a completion script generated
// from the program's own CLI11 tree (cli/app.h root_app()), so new commands and options are
// completed without touching this file. Hidden commands are left out.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/app.h"
#include "cli/command_registry.h"
#include "util/exit_code.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

// What the scripts need from the CLI11 tree.
struct OptionSpec {
  std::vector<std::string> long_names;   // without "--"
  std::vector<std::string> short_names;  // without "-"
  bool takes_value = false;
  std::string description;
};

struct CommandSpec {
  std::string name;  // empty for the root
  std::string description;
  std::vector<OptionSpec> options;
};

struct CompletionModel {
  std::string program;
  CommandSpec root;
  std::vector<CommandSpec> commands;
};

CommandSpec command_spec(const CLI::App& app, std::string name) {
  CommandSpec spec{std::move(name), app.get_description(), {}};
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_positional() || (option->get_lnames().empty() && option->get_snames().empty())) continue;
    spec.options.push_back({option->get_lnames(), option->get_snames(), option->get_items_expected_max() > 0,
                            option->get_description()});
  }
  return spec;
}

CompletionModel build_model(const CLI::App& root) {
  CompletionModel model{root.get_name(), command_spec(root, ""), {}};
  for (const CLI::App* sub : root.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
    model.commands.push_back(command_spec(*sub, sub->get_name()));
  }
  return model;
}

std::string function_name(const std::string& program) {
  std::string out = "_";
  for (char c : program) out.push_back(c == '-' ? '_' : c);
  return out;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// Escapes `text` for a single-quoted string of a POSIX shell / fish / elvish.
std::string single_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string all_words(const CommandSpec& command, bool with_subcommands, const CompletionModel& model) {
  std::vector<std::string> words;
  if (with_subcommands) {
    for (const auto& c : model.commands) words.push_back(c.name);
  }
  for (const auto& option : command.options) {
    for (const auto& l : option.long_names) words.push_back("--" + l);
    for (const auto& s : option.short_names) words.push_back("-" + s);
  }
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string value_options(const CommandSpec& command) {
  std::string out;
  for (const auto& option : command.options) {
    if (!option.takes_value) continue;
    for (const auto& l : option.long_names) out += (out.empty() ? "" : "|") + ("--" + l);
    for (const auto& s : option.short_names) out += (out.empty() ? "" : "|") + ("-" + s);
  }
  return out;
}

std::string bash_script(const CompletionModel& m) {
  std::string f = function_name(m.program);
  std::string s = f + "() {\n"
                      "    local cur=\"${COMP_WORDS[COMP_CWORD]}\"\n"
                      "    local prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
                      "    local command=\"\" i\n"
                      "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
                      "        case \"${COMP_WORDS[i]}\" in\n"
                      "            -*) ;;\n"
                      "            *) command=\"${COMP_WORDS[i]}\"; break ;;\n"
                      "        esac\n"
                      "    done\n"
                      "    local words=\"\" value_options=\"\"\n"
                      "    case \"$command\" in\n";
  s += "        \"\") words=" + single_quoted(all_words(m.root, true, m)) + " ;;\n";
  for (const auto& c : m.commands) {
    s += "        " + c.name + ") words=" + single_quoted(all_words(c, false, m)) + "; value_options=" +
         single_quoted(value_options(c)) + " ;;\n";
  }
  s += "    esac\n"
       "    # The value of an option: let bash complete file names.\n"
       "    if [[ -n \"$value_options\" && \"|$value_options|\" == *\"|$prev|\"* ]]; then\n"
       "        COMPREPLY=()\n"
       "        return 0\n"
       "    fi\n"
       "    if [[ -z \"$command\" || \"$cur\" == -* ]]; then\n"
       "        COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
       "    else\n"
       "        COMPREPLY=()\n"
       "    fi\n"
       "    return 0\n"
       "}\n\n"
       "complete -F " + f + " -o bashdefault -o default " + m.program + "\n";
  return s;
}

std::string zsh_escape(const std::string& text) {
  std::string out;
  for (char c : first_line(text)) {
    if (c == '\'') out += "'\\''";
    else if (c == '[' || c == ']' || c == ':' || c == '\\') out += std::string("\\") + c;
    else out.push_back(c);
  }
  return out;
}

std::string zsh_option_lines(const CommandSpec& command, const std::string& indent) {
  std::string s;
  for (const auto& option : command.options) {
    std::vector<std::string> names;
    for (const auto& l : option.long_names) names.push_back("--" + l);
    for (const auto& sh : option.short_names) names.push_back("-" + sh);
    for (const auto& name : names) {
      s += indent + "'" + name + (option.takes_value ? "=" : "") + "[" + zsh_escape(option.description) + "]" +
           (option.takes_value ? ":value:_files" : "") + "' \\\n";
    }
  }
  return s;
}

std::string zsh_script(const CompletionModel& m) {
  std::string f = function_name(m.program);
  std::string s = "#compdef " + m.program + "\n\n" + f + "() {\n    local -a commands\n    commands=(\n";
  for (const auto& c : m.commands) s += "        '" + c.name + ":" + zsh_escape(c.description) + "'\n";
  s += "    )\n    local curcontext=\"$curcontext\" state line\n    _arguments -C \\\n";
  s += zsh_option_lines(m.root, "        ");
  s += "        '1: :->command' \\\n        '*:: :->args'\n"
       "    case $state in\n"
       "        command) _describe -t commands '" + m.program + " command' commands ;;\n"
       "        args)\n            case $words[1] in\n";
  for (const auto& c : m.commands) {
    s += "                " + c.name + ")\n                    _arguments \\\n";
    s += zsh_option_lines(c, "                        ");
    s += "                        '*:file:_files'\n                    ;;\n";
  }
  s += "            esac\n            ;;\n    esac\n}\n\n"
       "if [ \"$funcstack[1]\" = \"" + f + "\" ]; then\n    " + f + " \"$@\"\nelse\n    compdef " + f + " " +
       m.program + "\nfi\n";
  return s;
}

std::string fish_option_line(const std::string& program, const std::string& condition, const OptionSpec& option) {
  std::string s = "complete -c " + program + " -n " + single_quoted(condition);
  for (const auto& l : option.long_names) s += " -l " + l;
  for (const auto& sh : option.short_names) s += " -s " + sh;
  if (option.takes_value) s += " -r";
  return s + " -d " + single_quoted(first_line(option.description)) + "\n";
}

std::string fish_script(const CompletionModel& m) {
  std::string s;
  for (const auto& option : m.root.options) s += fish_option_line(m.program, "__fish_use_subcommand", option);
  for (const auto& c : m.commands) {
    s += "complete -c " + m.program + " -n '__fish_use_subcommand' -f -a " + c.name + " -d " +
         single_quoted(first_line(c.description)) + "\n";
  }
  for (const auto& c : m.commands) {
    for (const auto& option : c.options) {
      s += fish_option_line(m.program, "__fish_seen_subcommand_from " + c.name, option);
    }
  }
  return s;
}

// Elvish single-quoted strings escape a quote by doubling it.
std::string elvish_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : first_line(text)) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string elvish_candidates(const CommandSpec& command, const CompletionModel* with_subcommands) {
  std::string s;
  auto cand = [&](const std::string& text, const std::string& description) {
    s += "            edit:complex-candidate " + elvish_quoted(text) + " &display=" +
         elvish_quoted(text + "  (" + first_line(description) + ")") + "\n";
  };
  if (with_subcommands) {
    for (const auto& c : with_subcommands->commands) cand(c.name, c.description);
  }
  for (const auto& option : command.options) {
    for (const auto& l : option.long_names) cand("--" + l, option.description);
    for (const auto& sh : option.short_names) cand("-" + sh, option.description);
  }
  return s;
}

std::string elvish_script(const CompletionModel& m) {
  std::string s = "use str\n\nset edit:completion:arg-completer[" + m.program + "] = {|@words|\n"
                  "    var completions = [\n";
  s += "        &" + elvish_quoted(m.program) + "= {\n" + elvish_candidates(m.root, &m) + "        }\n";
  for (const auto& c : m.commands) {
    s += "        &" + elvish_quoted(m.program + ";" + c.name) + "= {\n" + elvish_candidates(c, nullptr) + "        }\n";
  }
  s += "    ]\n"
       "    var command = " + elvish_quoted(m.program) + "\n"
       "    for word $words[1..-1] {\n"
       "        if (has-key $completions $command';'$word) {\n"
       "            set command = $command';'$word\n"
       "        }\n"
       "    }\n"
       "    $completions[$command]\n"
       "}\n";
  return s;
}

std::string powershell_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : first_line(text)) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string powershell_script(const CompletionModel& m) {
  std::string s =
      "using namespace System.Management.Automation\n"
      "using namespace System.Management.Automation.Language\n\n"
      "Register-ArgumentCompleter -Native -CommandName '" + m.program + "' -ScriptBlock {\n"
      "    param($wordToComplete, $commandAst, $cursorPosition)\n"
      "    $elements = $commandAst.CommandElements\n"
      "    $command = @(\n"
      "        '" + m.program + "'\n"
      "        for ($i = 1; $i -lt $elements.Count; $i++) {\n"
      "            $element = $elements[$i]\n"
      "            if ($element -isnot [StringConstantExpressionAst] -or\n"
      "                $element.StringConstantType -ne [StringConstantType]::BareWord -or\n"
      "                $element.Value.StartsWith('-') -or\n"
      "                $element.Value -eq $wordToComplete) {\n"
      "                break\n"
      "            }\n"
      "            $element.Value\n"
      "        }) -join ';'\n"
      "    $completions = @(switch ($command) {\n";
  auto entries = [&](const CommandSpec& command, bool with_subcommands) {
    std::string e;
    if (with_subcommands) {
      for (const auto& c : m.commands) {
        e += "            [CompletionResult]::new(" + powershell_quoted(c.name) + ", " + powershell_quoted(c.name) +
             ", [CompletionResultType]::ParameterValue, " + powershell_quoted(c.description.empty() ? c.name : c.description) + ")\n";
      }
    }
    for (const auto& option : command.options) {
      std::vector<std::string> names;
      for (const auto& l : option.long_names) names.push_back("--" + l);
      for (const auto& sh : option.short_names) names.push_back("-" + sh);
      for (const auto& name : names) {
        e += "            [CompletionResult]::new(" + powershell_quoted(name) + ", " + powershell_quoted(name) +
             ", [CompletionResultType]::ParameterName, " +
             powershell_quoted(option.description.empty() ? name : option.description) + ")\n";
      }
    }
    return e;
  };
  s += "        " + powershell_quoted(m.program) + " {\n" + entries(m.root, true) + "            break\n        }\n";
  for (const auto& c : m.commands) {
    s += "        " + powershell_quoted(m.program + ";" + c.name) + " {\n" + entries(c, false) +
         "            break\n        }\n";
  }
  s += "    })\n"
       "    $completions.Where{ $_.CompletionText -like \"$wordToComplete*\" } |\n"
       "        Sort-Object -Property ListItemText\n"
       "}\n";
  return s;
}

struct Options {
  std::string shell;
};

int print_completions(const Options& options) {
  CompletionModel model = build_model(root_app());
  std::string script;
  if (options.shell == "bash") script = bash_script(model);
  else if (options.shell == "zsh") script = zsh_script(model);
  else if (options.shell == "fish") script = fish_script(model);
  else if (options.shell == "elvish") script = elvish_script(model);
  else script = powershell_script(model);
  std::fputs(script.c_str(), stdout);
  return util::to_int(util::ExitCode::success);
}

Action setup(CLI::App& app) {
  auto options = std::make_shared<Options>();
  app.add_option("SHELL", options->shell, "Shell to generate completions for")
      ->required()
      ->check(CLI::IsMember({"bash", "elvish", "fish", "powershell", "zsh"}));
  return [options] { return print_completions(*options); };
}

const RegisterCommand registration("kernel-builder",
                                   {"completions", "Print a shell completion script", setup, false, 900});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
