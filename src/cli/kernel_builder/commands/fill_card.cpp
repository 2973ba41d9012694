// `kernel-builder fill-card [KERNEL_DIR] [OUTPUT]`: render CARD.md (docs/build-output.md)
// to OUTPUT (then `Generated <path>` on stderr) or stdout.
#include <iostream>

#include "cli/command_registry.h"
#include "cli/kernel_builder/commands/kernel_dir.h"
#include "codegen/card/card_context.h"
#include "config/reader.h"
#include "util/fs.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

struct Options {
  std::string dir = ".";
  std::string output;
};

util::Status fill(const Options& o) {
  KB_TRY(require_directory(o.dir));
  auto config = config::load_build_config(o.dir);
  if (!config) return std::move(config).error();
  auto card = codegen::card::fill_card(*config, o.dir);
  if (!card) return std::move(card).error();
  if (o.output.empty()) {
    std::cout << *card;
    return {};
  }
  KB_TRY(util::write_file_atomic(o.output, *card));
  std::cerr << "Generated " << o.output << "\n";
  return {};
}

Action setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  add_kernel_dir(app, o->dir);
  app.add_option("OUTPUT", o->output, "Output file (default: stdout)");
  return [o] { return exit_status(fill(*o)); };
}

const RegisterCommand registration("kernel-builder", {"fill-card", "Render the CARD.md template", setup, false, 200});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
