// Unique ids and git state (see unique_id.h).
#include "builder/unique_id.h"

#include <algorithm>
#include <random>

#include "util/process.h"
#include "util/strings.h"

namespace kb::builder {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> git_output(const fs::path& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"git", "-C", dir.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  util::ProcessOptions options;
  options.env["GIT_OPTIONAL_LOCKS"] = "0";  // `git status` must not take the index lock
  auto run = util::run_process(argv, options);
  if (!run || !run->success()) return std::nullopt;
  return std::string(util::trim(run->stdout_text));
}

}  // namespace

std::optional<GitInfo> read_git_info(const fs::path& dir) {
  if (!util::find_program("git")) return std::nullopt;
  auto ids = git_output(dir, {"rev-parse", "-q", "HEAD^{commit}", "HEAD^{tree}"});
  if (!ids) return std::nullopt;
  auto lines = util::split(*ids, '\n');
  if (lines.size() != 2) return std::nullopt;
  GitInfo info;
  info.commit = std::string(util::trim(lines[0]));
  info.tree = std::string(util::trim(lines[1]));
  auto status = git_output(dir, {"status", "--porcelain", "--untracked-files=no", "--ignore-submodules=all"});
  info.dirty = status && !status->empty();
  return info;
}

std::string base32_id(uint64_t value) {
  static const char* alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  unsigned char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>((value >> (8 * i)) & 0xff);
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char byte : bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(buffer << (5 - bits)) & 31];
  return out;
}

util::Status check_unique_id(const std::string& id) {
  bool valid = !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
  if (valid) return {};
  std::string suggestion;
  for (char c : id) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    suggestion += keep ? c : '_';
  }
  util::Error error(util::ErrorKind::usage, "Invalid unique id `" + id +
                                                "`: it becomes part of the ops module's name, so it may contain only "
                                                "letters, digits and underscores");
  if (!suggestion.empty()) error.hints.push_back("use e.g. `--unique-id " + suggestion + "`");
  return error;
}

std::string make_unique_id(const std::optional<std::string>& requested, const std::optional<GitInfo>& git) {
  if (requested) return *requested;
  if (git) return git->tree.substr(0, 7) + (git->dirty ? "_dirty" : "");
  std::random_device device;
  uint64_t value = (static_cast<uint64_t>(device()) << 32) ^ device();
  return base32_id(value);
}

std::optional<metadata::GitState> kernel_git_state(const std::optional<GitInfo>& git) {
  if (!git) return std::nullopt;
  return metadata::GitState{git->commit, git->dirty};
}

}  // namespace kb::builder
