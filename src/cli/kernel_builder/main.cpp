// kernel-builder: validate, scaffold, build, check and publish PyTorch kernels.
#include "cli/app.h"

int main(int argc, char** argv) {
  kb::cli::ProgramInfo info{
      "kernel-builder",
      "Build, check and publish PyTorch kernels from a build.toml project, without Nix.",
      "Run `kernel-builder <COMMAND> --help` for a command's options.",
      "a failed build, check, request or file operation, a declined prompt"};
  return kb::cli::run_program(info, argc, argv);
}
