// `kernel-hub org add NAME --root DIR [--trusted]`: create or update an organization.
#include <cstdio>

#include "cli/command_registry.h"
#include "hub/storage/accounts.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

struct Options {
  std::string name;
  std::string root;
  bool trusted = false;
};

Action setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.require_subcommand(1, 1);
  CLI::App* add = app.add_subcommand("add", "Create an organization (or update its trust flag)");
  add->add_option("NAME", o->name, "Organization name")->required();
  add->add_option("--root", o->root, "Hub storage directory")->required();
  add->add_flag("--trusted", o->trusted, "Mark the organization as a trusted kernel publisher");
  return [o] {
    hub::storage::Accounts accounts(o->root);
    auto status = accounts.add_org(o->name, o->trusted);
    if (status) std::fprintf(stderr, "Organization `%s` saved%s\n", o->name.c_str(), o->trusted ? " (trusted)" : "");
    return exit_status(status);
  };
}

const RegisterCommand registration("kernel-hub", {"org", "Manage organizations", setup, false, 20});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
