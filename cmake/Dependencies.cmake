# Third-party libraries, all from Debian packages (scripts/install-deps installs them):
# toml++ (TOML with source positions), nlohmann/json, CLI11, OpenSSL (hashes), libcurl (Hub
# client), cpp-httplib (an HTTP server for the client's unit tests), Boost.Beast (Hub server, found in
# src/hub/server), libelf (ELF symbol tables for check-abi), liblz4 (Xet chunk
# compression), minizip (the pinned header archives, which are zip), GoogleTest.
# A portable build (KB_PORTABLE, cmake/Portable.cmake) links static archives and header-only
# forms of the same libraries instead.
include(Portable)
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(CURL REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
if(NOT KB_PORTABLE)
  pkg_check_modules(TOMLPP REQUIRED IMPORTED_TARGET tomlplusplus)
  pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)
  pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
  pkg_check_modules(MINIZIP REQUIRED IMPORTED_TARGET minizip)
endif()
# cpp-httplib: only the Hub client's unit tests use it, as a real HTTP server to talk to (a portable
# build defines PkgConfig::HTTPLIB as its header-only form, cmake/Portable.cmake).
if(KB_TESTS AND NOT TARGET PkgConfig::HTTPLIB)
  pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
endif()
if(KB_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
