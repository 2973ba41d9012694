// The options that say where a Hub keeps its state (docs/hub-scale.md), shared by `serve`, `user`
// and `org`: --root, and for replicas --database and --object-store (or KB_HUB_DATABASE and
// KB_HUB_OBJECT_STORE); the object store's credentials come only from AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY.
#pragma once

#include <CLI/CLI.hpp>

#include "hub/storage/backend.h"

namespace kb::cli {

struct BackendOptions {
  std::string root;
  std::string database;
  std::string object_store;

  hub::storage::BackendConfig config() const;
};

// `root_help` describes --root for this command.
void add_backend_options(CLI::App& app, BackendOptions& options, const std::string& root_help);

}  // namespace kb::cli
