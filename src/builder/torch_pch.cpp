// The torch header cache (see torch_pch.h).
#include "builder/torch_pch.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "builder/project_includes.h"
#include "builder/user_cache.h"
#include "codegen/ops_py.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/prelude.h"
#include "util/process.h"
#include "util/strings.h"

extern char** environ;

namespace kb::builder {

namespace {

// Entries kept in the cache (each is a few hundred MiB: GCC's image of the parsed headers).
constexpr size_t kMaxEntries = 4;
// How deep quoted includes are followed when walking a source's leading includes.
constexpr int kMaxIncludeDepth = 4;
constexpr const char* kHeaderName = "torch_pch.h";
// The in-tree header while no cache entry is linked.
constexpr const char* kUnusedHeaderText = "// kernel-builder's torch header cache is not used.\n";

// Holds an exclusive flock on a file for its lifetime: the kernel drops it when the process
// dies, so a killed build never leaves the cache locked. (The loader's FileLock lives in a stage
// that kb_builder must not link.)
class ExclusiveLock {
 public:
  explicit ExclusiveLock(const fs::path& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ >= 0) {
      while (::flock(fd_, LOCK_EX) != 0) {
        if (errno != EINTR) break;
      }
    }
  }
  ~ExclusiveLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  ExclusiveLock(const ExclusiveLock&) = delete;
  ExclusiveLock& operator=(const ExclusiveLock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_;
};

std::string file_identity(const fs::path& path) {
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  if (ec) return path.string() + " (missing)";
  auto time = fs::last_write_time(path, ec);
  return path.string() + " " + std::to_string(size) + " " + std::to_string(time.time_since_epoch().count());
}

std::string compiler_identity(const std::string& compiler) {
  fs::path resolved = compiler;
  if (resolved.is_relative()) {
    if (auto found = util::find_program(compiler)) resolved = *found;
  }
  std::error_code ec;
  fs::path real = fs::canonical(resolved, ec);
  std::string out = file_identity(ec ? resolved : real);
  auto version = util::run_process({compiler, "-dumpfullversion", "-dumpmachine"});
  if (version && version->success()) out += " " + std::string(util::trim(version->stdout_text));
  return out;
}

bool is_cxx_file(const fs::path& path) {
  auto ext = path.extension().string();
  return ext == ".cpp" || ext == ".cc" || ext == ".cxx";
}

// Where a quoted include of `file` resolves (resolve_project_include), when that lies inside the
// project; empty otherwise.
std::optional<fs::path> project_header(const fs::path& project, const fs::path& file, const std::string& name,
                                       const std::vector<std::string>& include_dirs) {
  auto found = resolve_project_include(project, include_dirs, file, {name, true});
  if (!found) return std::nullopt;
  std::error_code ec;
  auto relative = fs::weakly_canonical(*found, ec).lexically_relative(fs::weakly_canonical(project, ec));
  if (relative.empty() || util::starts_with(relative.generic_string(), "..")) return std::nullopt;
  return found;
}

// Whether a quoted include `name` (found at `found` in the project, if it is there) is the
// builder's own registration header (codegen::render_registration_h()): in the variant's project
// directory when the project has none, or a copy with exactly its text (`create-pyproject` writes
// one into torch-ext/). It includes <Python.h> and defines the binding macros, none of which the
// torch headers read, so the walk passes over it.
bool is_builder_registration_header(const std::string& name, const std::optional<fs::path>& found) {
  if (fs::path(name).filename() != codegen::kRegistrationHeader) return false;
  if (!found) return true;
  static const auto builder_text = codegen::render_registration_h();
  auto text = util::read_file(*found);
  return builder_text && text && *text == *builder_text;
}

// How a walk of a file's leading includes ended.
enum class Prologue {
  reaches_torch_h,  // <torch/torch.h> came before anything but torch headers
  stops,            // something else came first
  ends,             // the file holds only torch headers' includes: the includer goes on after it
};

Prologue walk_prologue(const fs::path& project, const fs::path& file, const std::vector<std::string>& include_dirs,
                       int depth) {
  auto text = util::read_file(file);
  if (!text) return Prologue::stops;
  auto leading = leading_includes(*text);
  for (const auto& include : leading.includes) {
    if (!include.quoted) {
      if (is_precompiled_header(include.name)) return Prologue::reaches_torch_h;
      if (torch_header(include.name)) continue;
      return Prologue::stops;
    }
    auto header = project_header(project, file, include.name, include_dirs);
    if (is_builder_registration_header(include.name, header)) continue;
    if (!header) return Prologue::stops;
    if (depth >= kMaxIncludeDepth) return Prologue::stops;
    auto inner = walk_prologue(project, *header, include_dirs, depth + 1);
    if (inner != Prologue::ends) return inner;
  }
  return leading.complete ? Prologue::ends : Prologue::stops;
}

// Writes `content` unless the file already holds it (a rewrite would make Ninja recompile every
// source that includes it).
util::Status write_if_changed(const fs::path& path, const std::string& content) {
  auto current = util::read_file(path);
  if (current && *current == content) return {};
  return util::write_file_atomic(path, content);
}

// Points `link` at `target` unless it already does.
util::Status link_to(const fs::path& link, const fs::path& target) {
  std::error_code ec;
  if (fs::is_symlink(link, ec) && fs::read_symlink(link, ec) == target) return {};
  fs::remove(link, ec);
  fs::create_symlink(target, link, ec);
  if (ec) return Error(ErrorKind::io, "Cannot link `" + link.string() + "`").with_cause(ec.message());
  return {};
}

// Removes the least recently used entries beyond kMaxEntries (never `keep`).
void prune(const fs::path& root, const std::string& keep) {
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (!entry.is_directory(ec) || entry.path().filename() == keep) continue;
    if (entry.path().filename().string().find('.') != std::string::npos) continue;  // temporary
    auto used = fs::last_write_time(entry.path() / "last-used", ec);
    if (ec) used = fs::file_time_type::min();
    entries.emplace_back(used, entry.path());
  }
  if (entries.size() + 1 <= kMaxEntries) return;
  std::sort(entries.begin(), entries.end());
  size_t excess = entries.size() + 1 - kMaxEntries;
  for (size_t i = 0; i < excess; ++i) fs::remove_all(entries[i].second, ec);
}

}  // namespace

// The one header the cache precompiles.
constexpr const char* kPrecompiledHeader = "torch/torch.h";

std::string torch_pch_header_text() {
  return std::string("// kernel-builder's torch header cache (src/builder/torch_pch.h).\n#include <") +
         kPrecompiledHeader + ">\n";
}

bool is_precompiled_header(const std::string& include) { return include == kPrecompiledHeader; }

LeadingIncludes leading_includes(const std::string& text) {
  LeadingIncludes out;
  size_t i = 0;
  std::string guard;  // an #ifndef seen, waiting for its #define
  bool guarded = false;  // one include guard was skipped
  const size_t n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
    } else if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      if (i == std::string::npos) break;
    } else if (text.compare(i, 2, "/*") == 0) {
      i = text.find("*/", i + 2);
      if (i == std::string::npos) return out;
      i += 2;
    } else if (c == '#') {
      size_t end = text.find('\n', i);
      std::string line = text.substr(i + 1, end == std::string::npos ? std::string::npos : end - i - 1);
      if (auto comment = line.find("//"); comment != std::string::npos) line.erase(comment);
      auto words_view = util::trim(line);
      std::string directive(words_view);
      size_t space = directive.find_first_of(" \t<\"");
      std::string name = directive.substr(0, space);
      std::string rest = space == std::string::npos ? "" : std::string(util::trim(directive.substr(space)));
      if (name == "include") {
        if (rest.size() < 3) return out;
        char open = rest[0];
        char close = open == '<' ? '>' : open == '"' ? '"' : 0;
        if (!close || !guard.empty()) return out;
        size_t stop = rest.find(close, 1);
        if (stop == std::string::npos) return out;
        out.includes.push_back(Include{rest.substr(1, stop - 1), open == '"'});
      } else if (name == "pragma" && rest == "once" && guard.empty() && out.includes.empty()) {
        // skipped
      } else if (name == "ifndef" && guard.empty() && !guarded && out.includes.empty() && !rest.empty()) {
        guard = rest;
      } else if (name == "define" && !guard.empty() && rest.substr(0, rest.find_first_of(" \t")) == guard) {
        guard.clear();
        guarded = true;
      } else {
        return out;
      }
      if (end == std::string::npos) break;
      i = end + 1;
    } else {
      return out;
    }
  }
  out.complete = guard.empty();
  return out;
}

std::vector<std::string> torch_header_sources(const fs::path& project, const std::vector<std::string>& sources,
                                              const std::vector<std::string>& include_dirs) {
  std::vector<std::string> out;
  for (const auto& source : sources) {
    if (!is_cxx_file(source)) continue;
    if (walk_prologue(project, project / source, include_dirs, 0) == Prologue::reaches_torch_h) out.push_back(source);
  }
  return out;
}

Result<std::vector<std::string>> split_command(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == '\\') {
      if (++i >= command.size()) return Error(ErrorKind::invalid, "Trailing backslash in a compile command");
      word += command[i];
      in_word = true;
    } else if (c == '\'') {
      size_t end = command.find('\'', i + 1);
      if (end == std::string::npos) return Error(ErrorKind::invalid, "Unterminated ' in a compile command");
      word += command.substr(i + 1, end - i - 1);
      i = end;
      in_word = true;
    } else if (c == '"') {
      for (++i; i < command.size() && command[i] != '"'; ++i) {
        if (command[i] == '\\' && i + 1 < command.size() && std::string("\"\\$`").find(command[i + 1]) != std::string::npos) ++i;
        word += command[i];
      }
      if (i >= command.size()) return Error(ErrorKind::invalid, "Unterminated \" in a compile command");
      in_word = true;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

Result<std::vector<std::string>> pch_compile_args(const std::vector<std::string>& tu, const ProjectSpecifics& specifics) {
  size_t i = 0;
  if (specifics.launcher && !tu.empty() && tu[0] == *specifics.launcher) ++i;
  if (i >= tu.size()) return Error(ErrorKind::invalid, "Empty compile command");
  std::vector<std::string> out = {tu[i++]};
  bool compiles = false;
  std::string project = specifics.project_dir.string();
  auto project_map = [&](const std::string& arg) {
    for (const char* option : {"-ffile-prefix-map=", "-fmacro-prefix-map=", "-fdebug-prefix-map="}) {
      if (util::starts_with(arg, option) && !project.empty() && util::starts_with(arg.substr(std::string(option).size()), project + "=")) {
        return true;
      }
    }
    return false;
  };
  for (; i < tu.size(); ++i) {
    const std::string& arg = tu[i];
    bool has_next = i + 1 < tu.size();
    if (arg == "-c") {
      compiles = true;
      if (has_next) ++i;
    } else if (arg == "-o" || arg == "-MT" || arg == "-MF" || arg == "-MQ" || arg == "-I" || arg == "-iquote") {
      if (has_next) ++i;
    } else if (arg == "-include" && has_next && fs::path(tu[i + 1]) == specifics.pch_header) {
      ++i;
    } else if (arg == "-MD" || arg == "-MMD" || arg == "-Winvalid-pch" || arg == "-fpch-preprocess" ||
               util::starts_with(arg, "-I") || util::starts_with(arg, "-DTORCH_EXTENSION_NAME=") ||
               (!specifics.target.empty() && arg == "-D" + specifics.target + "_EXPORTS") || project_map(arg)) {
      // specific to this project or to compiling a source
    } else {
      out.push_back(arg);
    }
  }
  if (!compiles) return Error(ErrorKind::invalid, "Not a compile command (no -c): " + util::join(tu, " "));
  return out;
}

fs::path header_cache_dir() { return user_cache_dir() / "torch-pch"; }

fs::path background_precompile_lock() {
  std::error_code ec;
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && *runtime && fs::is_directory(runtime, ec)) {
    return fs::path(runtime) / "kernel-builder" / "precompile.lock";
  }
  const char* tmp = std::getenv("TMPDIR");
  fs::path base = tmp && *tmp ? fs::path(tmp) : fs::path("/tmp");
  return base / ("kernel-builder-" + std::to_string(::getuid())) / "precompile.lock";
}

namespace {

// A word for /bin/sh, single-quoted.
std::string shell_word(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The script that builds one entry in `temporary` and renames it to `entry`: the compiler's output
// goes to precompile.log inside it, how it was scheduled to `schedule`, and a failed precompile
// leaves only <key>.failed.log. `build` is the process of the build that starts it.
//  - One at a time per user: it waits for background_precompile_lock(), open as descriptor 4 when
//    `machine_locked` (flock(1), util-linux), in a sleeping
//    shell; a precompile takes about 1 GB and a core, and CI starts several cold builds at once.
//    Waiting rather than giving up: the build after this one finds the entry, and a waiter (a test,
//    the bench) is not left without one. It gives up when `temporary` is gone meanwhile.
//  - The idle scheduling class (chrt -i) only while `build` runs, and only where the precompile
//    can leave it again (probed, at nice 0 and else at nice 19): once the build has ended it moves
//    to the normal class at that nice value, so that a machine kept busy by other work cannot
//    starve it (at nice 19 it got about 1 % of a core beside two compiling test workers, and took
//    17 minutes). Started after the build has ended (it waited for the per-user lock), it compiles
//    at the normal priority. Where the idle class cannot be left (RLIMIT_NICE), nice 19 while the
//    build runs, and it stays there. Hang-ups and Ctrl-C are ignored.
std::string fill_script(const std::vector<std::string>& argv, const fs::path& temporary, const fs::path& entry,
                        const fs::path& failed_log, bool machine_locked, pid_t build) {
  std::vector<std::string> words;
  for (const auto& arg : argv) words.push_back(shell_word(arg));
  std::string compile = util::join(words, " ");
  std::string tmp = shell_word(temporary.string());
  std::string log = shell_word((temporary / "precompile.log").string());
  std::string schedule = shell_word((temporary / "schedule").string());
  std::string status = shell_word((temporary / "status").string());
  std::string build_pid = std::to_string(build);
  return "#!/bin/sh\n"
         "# kernel-builder: one torch header cache entry, built in the background (src/builder/torch_pch.h).\n"
         "trap '' HUP INT\n"
         + (machine_locked ? "if command -v flock >/dev/null 2>&1; then\n"
                             "  echo 'waiting for the per-user precompile lock' >>" + schedule + "\n"
                             "  flock 4\n"
                             "fi\n"
                           : std::string()) +
         "[ -d " + tmp + " ] || exit 0\n"
         // Moves every process of this script's process group to the normal class (nice stays 19).
         "normal_class() {\n"
         "  for stat in /proc/[0-9]*/stat; do\n"
         "    read -r line <\"$stat\" 2>/dev/null || continue\n"
         "    set -- ${line##*) }\n"
         "    pid=${stat#/proc/}; pid=${pid%/stat}\n"
         "    [ \"$3\" = \"$$\" ] && [ \"$pid\" != \"$$\" ] && chrt -o -a -p 0 \"$pid\" >/dev/null 2>&1\n"
         "  done\n"
         "}\n"
         // The nice value at which the idle class can be left again (none: it cannot).
         "level=\n"
         "if command -v chrt >/dev/null 2>&1 && kill -0 " + build_pid + " 2>/dev/null; then\n"
         "  for n in 0 19; do\n"
         "    if chrt -i 0 nice -n $n sh -c 'chrt -o -p 0 $$' >/dev/null 2>&1; then level=$n; break; fi\n"
         "  done\n"
         "fi\n"
         "if [ -n \"$level\" ]; then\n"
         "  echo \"idle class, nice $level, while build " + build_pid + " runs\" >>" + schedule + "\n"
         "  ( chrt -i 0 nice -n $level " + compile + " >" + log + " 2>&1; echo $? >" + status + ".part; mv " + status +
         ".part " + status + " ) &\n"
         "  while [ ! -e " + status + " ]; do\n"
         "    if [ -z \"$moved\" ] && ! kill -0 " + build_pid + " 2>/dev/null; then\n"
         "      normal_class; moved=1\n"
         "      echo \"build " + build_pid + " ended: normal class, nice $level\" >>" + schedule + "\n"
         "    fi\n"
         "    sleep 1\n"
         "  done\n"
         "  wait\n"
         "elif kill -0 " + build_pid + " 2>/dev/null; then\n"
         "  echo 'normal class, nice 19, while build " + build_pid + " runs' >>" + schedule + "\n"
         "  nice -n 19 " + compile + " >" + log + " 2>&1; echo $? >" + status + "\n"
         "else\n"
         "  echo 'normal class, nice 0: build " + build_pid + " has ended' >>" + schedule + "\n"
         "  " + compile + " >" + log + " 2>&1; echo $? >" + status + "\n"
         "fi\n"
         "if [ \"$(cat " + status + ")\" = 0 ]; then\n"
         "  rm -f " + status + "\n"
         "  mv -T " + tmp + " " + shell_word(entry.string()) + " && exit 0\n"
         "fi\n"
         "mv -f " + log + " " + shell_word(failed_log.string()) + " 2>/dev/null\n"
         "rm -rf " + tmp + "\n";
}

// Starts /bin/sh on `script` beside this build, holding `lock_fd` (as descriptor 3) until it
// exits, and the per-user lock file `machine_lock_fd` (when >= 0) as descriptor 4, in a process group of its own (Ctrl-C and the build's end leave it running) but in the
// build's session: Linux shares the CPU fairly between sessions (autogroups), so a session of its
// own would take half of the cores from the build, whatever its priority. Returns whether it started.
bool spawn_detached(const fs::path& script, int lock_fd, int machine_lock_fd) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attributes);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_adddup2(&actions, lock_fd, 3);  // the lock, without close-on-exec
  if (machine_lock_fd >= 0) posix_spawn_file_actions_adddup2(&actions, machine_lock_fd, 4);  // the per-user lock, unlocked
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::string sh = "/bin/sh";
  std::string path = script.string();
  std::vector<char*> argv = {sh.data(), path.data(), nullptr};
  pid_t pid = 0;
  int spawned = ::posix_spawn(&pid, sh.c_str(), &actions, &attributes, argv.data(), ::environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  // The child is not waited for: init reaps it once this process has exited.
  return spawned == 0;
}

// Starts building the cache entry `entry` (named `key` under `root`) with the precompile arguments
// `args` in the background (spawn_detached), holding the entry's lock `lock_fd`. Returns why it
// could not start, if it could not.
std::optional<std::string> start_fill(const fs::path& root, const std::string& key, const fs::path& entry,
                                      const std::vector<std::string>& args, int lock_fd) {
  std::error_code ec;
  fs::path temporary = root / (key + ".tmp-" + std::to_string(::getpid()));
  fs::remove_all(temporary, ec);
  fs::create_directories(temporary, ec);
  std::string cannot_write = "the header cache is not used: cannot write " + temporary.string();
  if (!util::write_file_atomic(temporary / kHeaderName, torch_pch_header_text())) return cannot_write;
  std::vector<std::string> argv = args;
  for (const char* extra : {"-x", "c++-header"}) argv.push_back(extra);
  argv.push_back((temporary / kHeaderName).string());
  argv.push_back("-o");
  argv.push_back((temporary / (std::string(kHeaderName) + ".gch")).string());
  if (!util::write_file_atomic(temporary / "command", util::join(argv, "\n") + "\n")) return cannot_write;
  if (!util::write_file_atomic(temporary / "last-used", key + "\n")) return cannot_write;
  fs::path script = temporary / "fill.sh";
  fs::path machine_lock = background_precompile_lock();
  fs::create_directories(machine_lock.parent_path(), ec);
  fs::permissions(machine_lock.parent_path(), fs::perms::owner_all, ec);
  int machine_fd = ::open(machine_lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (!util::write_file_atomic(script, fill_script(argv, temporary, entry, root / (key + ".failed.log"),
                                                   machine_fd >= 0, ::getpid()))) {
    if (machine_fd >= 0) ::close(machine_fd);
    return cannot_write;
  }
  bool spawned = spawn_detached(script, lock_fd, machine_fd);
  if (machine_fd >= 0) ::close(machine_fd);
  if (!spawned) {
    fs::remove_all(temporary, ec);
    return "the header cache is not used: cannot start /bin/sh to precompile <torch/torch.h>";
  }
  return std::nullopt;
}

// Whether the sources of `cmake_dir` were compiled before (Ninja's log has entries).
bool compiled_before(const fs::path& cmake_dir) {
  std::error_code ec;
  return fs::file_size(cmake_dir / ".ninja_log", ec) > 0 && !ec;
}

}  // namespace

Result<PreparedPch> prepare_torch_pch(const fs::path& cmake_dir, const ProjectSpecifics& specifics,
                                      const TorchInstall& torch, size_t switch_limit, const OutOfDate& any_out_of_date) {
  PreparedPch out;
  std::error_code ec;
  fs::create_directories(specifics.pch_header.parent_path(), ec);
  fs::path in_tree_gch = specifics.pch_header.string() + ".gch";
  // Until a cache entry is linked, the in-tree header is empty: sources compile as without it.
  auto unused = [&](std::optional<std::string> note) -> Result<PreparedPch> {
    fs::remove(in_tree_gch, ec);
    KB_TRY(write_if_changed(specifics.pch_header, kUnusedHeaderText));
    out.note = std::move(note);
    return out;
  };

  auto text = util::read_file(cmake_dir / "compile_commands.json");
  if (!text) return unused(std::nullopt);
  nlohmann::json commands = nlohmann::json::parse(*text, nullptr, false);
  if (!commands.is_array()) return unused("the header cache is not used: compile_commands.json is unreadable");
  std::optional<std::vector<std::string>> tu;
  size_t& users = out.users;
  std::vector<std::string> objects;  // of the sources that use it
  for (const auto& entry : commands) {
    std::string command = entry.value("command", "");
    if (command.find(specifics.pch_header.string()) == std::string::npos) continue;
    ++users;
    // Ninja's name of the object: relative to the build directory (CMake 4 writes "output" as an
    // absolute path, CMake 3 writes none: then the command's -o). The command is split only for
    // that and for the first user's, which the entry is precompiled like.
    std::string object = entry.value("output", "");
    if (object.empty() || !tu) {
      auto words = split_command(command);
      if (!words) return unused("the header cache is not used: " + words.error().message);
      for (size_t i = 0; object.empty() && i + 1 < words->size(); ++i) {
        if ((*words)[i] == "-o") object = (*words)[i + 1];
      }
      if (!tu) tu = std::move(*words);
    }
    if (fs::path(object).is_absolute()) object = fs::path(object).lexically_relative(cmake_dir).string();
    objects.push_back(object);
  }
  if (!tu) return unused(std::nullopt);  // no source uses it (or the compiler is not GCC)
  // Objects compiled without the cache stay valid: switching to it recompiles every source that
  // uses it, worth it only when they all fit in one wave of compile jobs, and only in a build that
  // recompiles one of them anyway.
  auto current = util::read_file(specifics.pch_header);
  if (current && *current == kUnusedHeaderText && compiled_before(cmake_dir) &&
      (users > switch_limit || (any_out_of_date && !any_out_of_date(objects)))) {
    return unused(std::nullopt);
  }
  auto args = pch_compile_args(*tu, specifics);
  if (!args) return unused("the header cache is not used: " + args.error().message);

  std::string key_input = "kb-torch-pch 1\n" + torch_pch_header_text() + util::join(*args, "\n") + "\n" +
                          compiler_identity(args->front()) + "\n" + torch.version + "\n" +
                          file_identity(torch.include / "torch" / "version.h") + "\n";
  out.key = util::sha256_hex(key_input).substr(0, 32);
  fs::path root = header_cache_dir();
  fs::create_directories(root, ec);
  if (ec) return unused("the header cache is not used: cannot create " + root.string() + ": " + ec.message());
  fs::path entry = root / out.key;
  fs::path gch = entry / (std::string(kHeaderName) + ".gch");
  if (!fs::exists(gch, ec)) {
    // No entry yet: this build compiles without it (parsing torch's headers in every source costs
    // less than precompiling them first), and the entry is built beside it, on idle cores, for
    // the builds after it. A build that finds the entry being built does the same.
    fs::path lock_path = root / (out.key + ".lock");
    int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return unused("the header cache is not used: cannot lock " + root.string());
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      return unused(std::string("the torch header cache entry for this toolchain and flags is being built by "
                                "another build; this one compiles without it"));
    }
    std::optional<std::string> failure;
    if (!fs::exists(gch, ec)) failure = start_fill(root, out.key, entry, *args, fd);
    bool started = !failure && !fs::exists(gch, ec);
    ::close(fd);  // the background precompile holds its own copy of the lock
    if (failure) return unused(*failure);
    if (started) {
      out.filling = true;
      return unused(std::nullopt);
    }
  }
  {
    ExclusiveLock lock(root / (out.key + ".lock"));
    std::ofstream(entry / "last-used", std::ios::trunc) << out.key << "\n";
    prune(root, out.key);
  }
  KB_TRY(write_if_changed(specifics.pch_header, torch_pch_header_text()));
  KB_TRY(link_to(in_tree_gch, gch));
  out.used = true;
  return out;
}

std::string ccache_sloppiness(const std::string& current) {
  std::vector<std::string> values;
  for (const auto& part : util::split(current, ',')) {
    std::string value(util::trim(part));
    if (!value.empty() && std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
  }
  for (const char* needed : {"pch_defines", "time_macros"}) {
    if (std::find(values.begin(), values.end(), needed) == values.end()) values.push_back(needed);
  }
  return util::join(values, ",");
}

std::string configured_ccache_sloppiness(const fs::path& ccache) {
  if (const char* env = std::getenv("CCACHE_SLOPPINESS"); env) return env;
  auto run = util::run_process({ccache.string(), "--get-config", "sloppiness"});
  if (!run || !run->success()) return "";
  return std::string(util::trim(run->stdout_text));
}

}  // namespace kb::builder
