// Internal to the config library: strict, located access to toml++ tables. A TableReader hands
// out typed values of the keys a schema asks for, records an error (with the key's position) for
// every missing, mistyped or invalid value, and finally reports each key nobody asked for as
// unknown, with a "did you mean" hint. Collecting instead of failing fast is what lets
// `check-config` show every error of a file in one run.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "config/diagnostic.h"
#include "config/model.h"
#include "config/toml_text.h"

namespace kb::config::detail {

class DiagnosticSink {
 public:
  explicit DiagnosticSink(std::string file) : file_(std::move(file)) {}

  void error(const toml::source_region& region, std::string message, std::vector<std::string> hints = {});
  void warning(const toml::source_region& region, std::string message, std::vector<std::string> hints = {});

  const std::string& file() const { return file_; }
  std::vector<Diagnostic>& errors() { return errors_; }
  std::vector<Diagnostic>& warnings() { return warnings_; }
  bool has_errors() const { return !errors_.empty(); }

 private:
  Diagnostic make(const toml::source_region& region, std::string message, std::vector<std::string> hints) const;

  std::string file_;
  std::vector<Diagnostic> errors_;
  std::vector<Diagnostic> warnings_;
};

// "string", "integer", "table", ... as used in type errors.
std::string_view type_name(const toml::node& node);
// The error "invalid type for `<path>`: expected <expected>, found <the node's type>".
void type_error(const toml::node& node, const std::string& path, std::string_view expected, DiagnosticSink& sink,
                std::vector<std::string> hints = {});

// Typed conversions of one node; on mismatch they record an error naming `path`.
std::optional<std::string> read_string(const toml::node& node, const std::string& path, DiagnosticSink& sink);
std::optional<int64_t> read_non_negative(const toml::node& node, const std::string& path, DiagnosticSink& sink);
std::optional<std::vector<std::string>> read_strings(const toml::node& node, const std::string& path,
                                                     DiagnosticSink& sink);
std::optional<Version> read_version(const toml::node& node, const std::string& path, DiagnosticSink& sink);

class TableReader {
 public:
  // `path` is the dotted path of the table ("" for the document root).
  TableReader(const toml::table& table, std::string path, DiagnosticSink& sink);

  // Declares `key` as part of this table's schema and returns its node if present.
  const toml::node* take(std::string_view key);
  // As take(), but records `missing required key` when absent.
  const toml::node* require(std::string_view key);

  std::optional<std::string> string(std::string_view key, bool required = false);
  std::optional<int64_t> non_negative(std::string_view key, bool required = false);
  std::optional<std::vector<std::string>> strings(std::string_view key, bool required = false);
  std::optional<Version> version(std::string_view key);
  std::optional<GitUrl> git_url(std::string_view key);
  // A sub-table (type-checked); nullptr when absent or mistyped.
  const toml::table* table(std::string_view key, bool required = false);

  // Reports every key not declared through take()/require(). `other_backend_keys` maps keys that
  // exist only for another kernel backend to the hint explaining where they belong.
  void finish(const std::map<std::string, std::string>& other_backend_keys = {});

  std::string path_of(std::string_view key) const;
  // "[general]", or "the top level" for the root.
  std::string display_name() const;
  const toml::table& node() const { return table_; }
  DiagnosticSink& sink() { return sink_; }

 private:
  const toml::table& table_;
  std::string path_;
  DiagnosticSink& sink_;
  std::vector<std::string> known_;
  std::set<std::string, std::less<>> known_set_;
};

}  // namespace kb::config::detail
