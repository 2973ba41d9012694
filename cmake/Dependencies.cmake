# Third-party libraries, all from Debian packages (scripts/install-deps installs them):
# toml++ (TOML with source positions), nlohmann/json, CLI11, OpenSSL (hashes), libcurl (Hub
# client), cpp-httplib (Hub server), libelf (ELF symbol tables for check-abi), liblz4 (Xet chunk
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
find_package(httplib QUIET)
if(KB_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
