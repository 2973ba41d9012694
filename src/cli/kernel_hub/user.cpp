// `kernel-hub user add NAME --root DIR [--org ORG]...`: create a user (or add orgs to one) and
// print a new access token on stdout (shown once; only its digest is stored).
// `kernel-hub user remove-org NAME --root DIR --org ORG...`: take the user out of organizations;
// a running server applies it on the user's next request (docs/hub-security.md, "Authorization").
#include <cstdio>

#include "cli/command_registry.h"
#include "hub/storage/accounts.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

struct Options {
  std::string name;
  std::string root;
  std::vector<std::string> orgs;
  bool remove = false;
};

Action setup(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.require_subcommand(1, 1);
  CLI::App* add = app.add_subcommand("add", "Create a user or add organizations; prints a new token");
  add->add_option("NAME", o->name, "User name")->required();
  add->add_option("--root", o->root, "Hub storage directory")->required();
  add->add_option("--org", o->orgs, "Organization the user belongs to (repeatable)")->allow_extra_args(false);
  CLI::App* remove = app.add_subcommand("remove-org", "Take a user out of organizations; their tokens lose access at once");
  remove->add_option("NAME", o->name, "User name")->required();
  remove->add_option("--root", o->root, "Hub storage directory")->required();
  remove->add_option("--org", o->orgs, "Organization to leave (repeatable)")->required()->allow_extra_args(false);
  remove->callback([o] { o->remove = true; });
  return [o] {
    hub::storage::Accounts accounts(o->root);
    if (o->remove) {
      if (auto removed = accounts.remove_from_orgs(o->name, o->orgs); !removed) return report_error(removed.error());
      std::fprintf(stderr, "User `%s` is no longer a member of %zu organization(s).\n", o->name.c_str(), o->orgs.size());
      return 0;
    }
    auto token = accounts.add_user(o->name, o->orgs);
    if (!token) return report_error(token.error());
    // The token is the command's data (stdout, e.g. for TOKEN=$(kernel-hub user add ...)); the note goes to stderr.
    std::fprintf(stderr, "User `%s` saved. New token (shown once):\n", o->name.c_str());
    std::printf("%s\n", token->c_str());
    return 0;
  };
}

const RegisterCommand registration("kernel-hub", {"user", "Manage users and tokens", setup, false, 30});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
