// kernel-hub: a self-hostable Hub server for kernel and model repositories, and its
// administration (organizations, users, tokens).
#include "cli/app.h"

int main(int argc, char** argv) {
  kb::cli::ProgramInfo info{
      "kernel-hub",
      "Serve kernel and model repositories over the Hugging Face Hub HTTP API.",
      "Run `kernel-hub <COMMAND> --help` for a command's options.",
      "a server that cannot start, an organization or user that cannot be added, a failed file operation"};
  return kb::cli::run_program(info, argc, argv);
}
