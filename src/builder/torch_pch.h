// The torch header cache: one GCC precompiled header of <torch/torch.h> per compile command
// (compiler, flags, defines, torch installation), built once into the user cache
// ($XDG_CACHE_HOME/kernel-builder/torch-pch/<key>/) and shared by every project and variant whose
// C++ sources compile with that command. Parsing the torch headers is most of a kernel TU's
// compile time; with the cache warm a TU only loads the precompiled state.
//
// Which sources use it: C++ sources that reach <torch/torch.h>, the precompiled header itself,
// through a prologue of torch's own headers — their leading includes, followed through the
// project's own headers, are <torch/...>, <ATen/...> or <c10/...> headers (and the builder's
// registration.h, generated or copied verbatim) until <torch/torch.h> comes — and that get no
// per-source options (codegen decides that part), in variants that do not target the Torch
// stable ABI. Such a source compiles to the same module with the precompiled state in front of
// it: it includes all of torch anyway, and only torch's own self-contained headers (in another
// order) came before it.
// A source whose leading torch headers never reach <torch/torch.h> (<torch/library.h> and
// declarations, <ATen/...> alone), or that has its own code, macros or other headers first,
// compiles without it: the precompiled state would add torch headers it does not include, or
// put them in front of its own code, and change what it compiles to (other inlining, more
// emitted symbols). The sources that use it are compiled with
// `-include <work>/torch-pch/torch_pch.h -Winvalid-pch -fpch-preprocess`; the builder links
// `torch_pch.h.gch` there to the cache entry. GCC uses a precompiled header only when it is valid
// for the compilation (same compiler binary, options and macros) and otherwise reads the header
// text, which includes the same torch headers the source was about to include: results are the
// same either way. If the cache entry cannot be built, the in-tree header is left empty, so the
// sources compile exactly as without the cache.
//
// The key hashes the compile command as CMake wrote it (compile_commands.json) minus what is
// specific to a project (output, source, dependency file, project include directories,
// TORCH_EXTENSION_NAME, the target's export define, the project's file-prefix map), the compiler
// binary (path, size, mtime, version) and the torch installation (version, path, mtime of
// version.h). Entries are created atomically (built in a temporary directory under an flock,
// then renamed) and the least recently used ones beyond kMaxEntries are removed. A first build
// never waits for its entry (prepare_torch_pch): precompiling <torch/torch.h> takes as long as
// compiling one source without it, so on the critical path it would make the first build slower
// than one without the cache; built beside it on idle cores, it speeds up every later build.
//
// ccache: a precompiled header needs `sloppiness = pch_defines,time_macros`; the builder adds
// them to CCACHE_SLOPPINESS for the compile step (ccache_sloppiness()) whenever a compile command
// carries the header's options, used or not: ccache counts -fpch-preprocess alone as the use of
// a precompiled header and, without time_macros, runs the compiler uncached
// (could_not_use_precompiled_header) — every compile of a first build, before the entry exists.
//
// The background precompile (docs/building.md, "The torch header cache"): at most one per user
// compiles at a time (background_precompile_lock(); the others wait in a sleeping shell, no
// compiler started, and give up when their cache directory is gone). It compiles in the idle
// scheduling class only while the build that started it runs, where it can leave that class
// again (at nice 0, else at nice 19; an unprivileged process needs RLIMIT_NICE for that,
// otherwise it compiles at nice 19 throughout): after the build nothing keeps it from the cores,
// and on a machine kept busy by other work neither the idle class nor nice 19 would let it finish.
// One that starts after its build has ended compiles at the normal priority. `schedule` in the
// entry says how it ran.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace kb::builder {

// The text of the header that is precompiled.
std::string torch_pch_header_text();

// Whether `include` (the text between <> or "") is the header the cache precompiles.
bool is_precompiled_header(const std::string& include);

// The leading includes of a C/C++ text: the #include directives before anything else, skipping
// comments, blank lines, and a `#pragma once` or include guard (`#ifndef X` + `#define X`) before
// them. `complete` when nothing else follows them (a header of includes only).
struct Include {
  std::string name;
  bool quoted = false;  // "name" rather than <name>
};
struct LeadingIncludes {
  std::vector<Include> includes;  // empty when the first directive is anything else
  bool complete = false;
};
LeadingIncludes leading_includes(const std::string& text);

// The sources among `sources` (relative to `project`) that reach <torch/torch.h> through a
// prologue of torch headers (see above), following quoted includes into project headers
// (searched next to the including file, then in `include_dirs`, relative to the project).
std::vector<std::string> torch_header_sources(const std::filesystem::path& project,
                                              const std::vector<std::string>& sources,
                                              const std::vector<std::string>& include_dirs);

// Splits a POSIX shell command line (as CMake writes compile_commands.json) into words.
util::Result<std::vector<std::string>> split_command(const std::string& command);

// What is specific to one project in a compile command, removed before keying the cache.
struct ProjectSpecifics {
  std::filesystem::path pch_header;      // the in-tree header passed with -include
  std::filesystem::path project_dir;     // -ffile-prefix-map=<project_dir>=...
  std::string target;                    // <target>_EXPORTS
  std::optional<std::string> launcher;   // compiler launcher (ccache) as the first word
};
// The arguments (compiler first) that build the precompiled header, from the compile command of
// a source that uses it; without -x/-o/input, which the builder appends.
util::Result<std::vector<std::string>> pch_compile_args(const std::vector<std::string>& tu_command,
                                                       const ProjectSpecifics& specifics);

// $XDG_CACHE_HOME/kernel-builder/torch-pch (else ~/.cache/...).
std::filesystem::path header_cache_dir();

// The per-user lock that lets one background precompile compile at a time, whatever the cache
// directory: $XDG_RUNTIME_DIR/kernel-builder/precompile.lock, else
// $TMPDIR (or /tmp)/kernel-builder-<uid>/precompile.lock.
std::filesystem::path background_precompile_lock();

struct TorchInstall {
  std::string version;            // torch.__version__
  std::filesystem::path include;  // torch's first include directory
};

struct PreparedPch {
  bool used = false;        // some source compiles with it and the cache entry is linked
  bool filling = false;     // no entry yet: this build started building it in the background
  size_t users = 0;         // compile commands that -include the in-tree header (with -fpch-preprocess)
  std::string key;
  std::optional<std::string> note;  // why the cache is not used, when it could have been
};

// Called after CMake configured `cmake_dir`: finds the sources that include `specifics.pch_header`
// and links the cache entry for their command beside the in-tree header (which it writes, keeping
// its modification time when the text is unchanged). When there is no entry yet, the build does
// not wait for one: the in-tree header stays empty, so the sources compile without the cache, and
// the entry is precompiled by a detached process of the idle scheduling class (it takes the cores
// the compiles leave idle, and goes on after the build) under the entry's lock; a build that finds
// the lock held compiles without the cache too. A build directory whose sources were compiled
// without the cache switches to it (all the sources that use it recompile then) only when at most
// `switch_limit` sources use it, and only in a build that recompiles one of them anyway:
// `any_out_of_date` is asked with their objects (paths relative to `cmake_dir`; none given: assume
// so). A build that leaves them alone (an edit of a CUDA source, say) would otherwise pay for
// recompiling them all; it keeps compiling without the cache, as does a directory with more users,
// until it is built clean.
using OutOfDate = std::function<bool(const std::vector<std::string>& outputs)>;
util::Result<PreparedPch> prepare_torch_pch(const std::filesystem::path& cmake_dir, const ProjectSpecifics& specifics,
                                            const TorchInstall& torch, size_t switch_limit,
                                            const OutOfDate& any_out_of_date = {});

// CCACHE_SLOPPINESS for compiling with a precompiled header: `current` (the configured value)
// plus pch_defines and time_macros.
std::string ccache_sloppiness(const std::string& current);
// The sloppiness ccache is configured with: $CCACHE_SLOPPINESS, else `ccache --get-config`.
std::string configured_ccache_sloppiness(const std::filesystem::path& ccache);

}  // namespace kb::builder
