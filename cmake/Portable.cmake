# Portable (manylinux) programs and Python module: KB_PORTABLE=<policy>, e.g. manylinux_2_28.
# scripts/build-wheels configures this; docs/install.md ("How the wheels are made") explains it.
#
# A plain build links Debian's shared libraries and runs where they are installed. A portable
# build must run on any Linux the policy covers, so:
#  - third-party libraries are linked statically: Debian's static archives (OpenSSL, zlib, lz4,
#    yaml-cpp, cmark, libelf, minizip), toml++ and cpp-httplib as header-only libraries, a
#    libcurl built for HTTP(S) only (Debian ships no static libcurl without its many optional
#    protocols) and a libpq without LDAP and GSSAPI (Debian's libpq.a needs archives it does not
#    ship) — scripts/build-wheels builds these from Debian's source packages and passes
#    KB_PORTABLE_PREFIX (libcurl, libpq) and KB_PORTABLE_HTTPLIB_DIR (the header-only httplib.h);
#  - libstdc++ is linked statically and kept hidden (the programs share no C++ objects with
#    anybody; the Python module exchanges only Python objects);
#  - the final links see link stubs of the host's libc/libm that bind every glibc symbol to its
#    newest version the policy allows (the same machinery kernel-builder uses for kernels,
#    src/builder/portable.h), plus local definitions of what newer headers reference and the
#    policy's glibc lacks (src/util/portable/glibc_compat.cpp). The stubs' libstdc++ definitions
#    (kb_portable.cpp) are for kernels, which share the process's libstdc++; the programs carry
#    their own static one and need none of them.
set(KB_PORTABLE "" CACHE STRING "Build self-contained binaries for this manylinux policy (empty: a plain build)")
set(KB_PORTABLE_PREFIX "" CACHE PATH "Prefix of the static libcurl and libpq of a portable build (scripts/build-wheels)")
set(KB_PORTABLE_HTTPLIB_DIR "" CACHE PATH "Directory of the header-only httplib.h of a portable build")

if(NOT KB_PORTABLE)
  return()
endif()
if(NOT KB_PORTABLE_PREFIX OR NOT KB_PORTABLE_HTTPLIB_DIR)
  message(FATAL_ERROR "KB_PORTABLE=${KB_PORTABLE} needs KB_PORTABLE_PREFIX (a static libcurl and libpq) and "
                      "KB_PORTABLE_HTTPLIB_DIR (httplib.h); scripts/build-wheels prepares both")
endif()

if(NOT KB_PORTABLE MATCHES "^manylinux_2_([0-9]+)$")
  message(FATAL_ERROR "KB_PORTABLE=${KB_PORTABLE}: expected a policy such as manylinux_2_28")
endif()
set(KB_PORTABLE_GLIBC_MINOR "${CMAKE_MATCH_1}")
list(PREPEND CMAKE_PREFIX_PATH "${KB_PORTABLE_PREFIX}")
set(OPENSSL_USE_STATIC_LIBS ON)
set(ZLIB_USE_STATIC_LIBS ON)
set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
find_package(ZLIB REQUIRED)

# toml++ and cpp-httplib: header-only (Debian's pkg-config files name their shared libraries).
find_path(KB_TOMLPP_INCLUDE_DIR toml++/toml.h REQUIRED)
add_library(PkgConfig::TOMLPP INTERFACE IMPORTED)
target_include_directories(PkgConfig::TOMLPP INTERFACE "${KB_TOMLPP_INCLUDE_DIR}")
target_compile_definitions(PkgConfig::TOMLPP INTERFACE TOML_HEADER_ONLY=1)
set(TOMLPP_FOUND TRUE)
add_library(PkgConfig::HTTPLIB INTERFACE IMPORTED)
target_include_directories(PkgConfig::HTTPLIB BEFORE INTERFACE "${KB_PORTABLE_HTTPLIB_DIR}")
target_compile_definitions(PkgConfig::HTTPLIB INTERFACE CPPHTTPLIB_OPENSSL_SUPPORT CPPHTTPLIB_ZLIB_SUPPORT)
set(HTTPLIB_FOUND TRUE)

# Static archives whose pkg-config or CMake files name only the shared library.
function(kb_portable_archive target archive)
  find_library(KB_PORTABLE_${archive} NAMES ${archive} REQUIRED)
  add_library(${target} STATIC IMPORTED)
  set_target_properties(${target} PROPERTIES IMPORTED_LOCATION "${KB_PORTABLE_${archive}}")
  if(ARGN)
    set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${ARGN}")
  endif()
endfunction()
kb_portable_archive(yaml-cpp libyaml-cpp.a)
kb_portable_archive(PkgConfig::LIBELF libelf.a ZLIB::ZLIB)
kb_portable_archive(PkgConfig::LZ4 liblz4.a)
kb_portable_archive(PkgConfig::MINIZIP libminizip.a ZLIB::ZLIB)
kb_portable_archive(PkgConfig::CMARK libcmark.a)
# libpq (kernel-hub's PostgreSQL back end): scripts/build-wheels builds it, static, from Debian's
# postgresql-15 source package into KB_PORTABLE_PREFIX, with the two archives of PostgreSQL's own it
# needs (libpgcommon, libpgport) and TLS over the static OpenSSL.
find_path(KB_LIBPQ_INCLUDE_DIR libpq-fe.h PATHS "${KB_PORTABLE_PREFIX}/include/libpq" NO_DEFAULT_PATH REQUIRED)
kb_portable_archive(kb_pgport libpgport.a)
kb_portable_archive(kb_pgcommon libpgcommon.a kb_pgport OpenSSL::Crypto)
kb_portable_archive(PkgConfig::LIBPQ libpq.a kb_pgcommon kb_pgport OpenSSL::SSL OpenSSL::Crypto Threads::Threads)
set_target_properties(PkgConfig::LIBPQ PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${KB_LIBPQ_INCLUDE_DIR}")
set(LIBELF_FOUND TRUE)
set(LZ4_FOUND TRUE)
set(MINIZIP_FOUND TRUE)
set(CMARK_FOUND TRUE)

# The link stubs: made at build time by kb-portable-stubs (src/cli/portable_stubs.cpp) from the
# host's libc/libm, before the first portable link.
set(KB_PORTABLE_STUB_DIR "${CMAKE_BINARY_DIR}/portable-stubs")

# kb_portable_program(<target>): links <target> for the policy (programs and the Python module).
function(kb_portable_program target)
  add_dependencies(${target} kb_portable_stubs)
  target_sources(${target} PRIVATE "${PROJECT_SOURCE_DIR}/src/util/portable/glibc_compat.cpp")
  set_source_files_properties("${PROJECT_SOURCE_DIR}/src/util/portable/glibc_compat.cpp" PROPERTIES
                              SKIP_PRECOMPILE_HEADERS ON SKIP_UNITY_BUILD_INCLUSION ON)
  # --allow-shlib-undefined: the real libpthread/librt name GLIBC_PRIVATE symbols of the real
  # libc, which the stubs do not carry; the system's own libc provides them at run time.
  target_link_options(${target} PRIVATE "-L${KB_PORTABLE_STUB_DIR}" -static-libstdc++ "LINKER:--exclude-libs,ALL"
                      "LINKER:--as-needed" "LINKER:--allow-shlib-undefined")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${KB_PORTABLE_STUB_DIR}/stamp")
  # Before glibc 2.34 the pthread, dl and rt functions live in their own libraries: the binary
  # names them so that an old system's loader finds the symbols the stubs bound to their versions.
  if(KB_PORTABLE_GLIBC_MINOR LESS 34)
    target_link_options(${target} PRIVATE "LINKER:--no-as-needed" -l:libpthread.so.0 -l:libdl.so.2 -l:librt.so.1
                        "LINKER:--as-needed")
  endif()
endfunction()
