# Unity builds of the stage libraries (KB_UNITY): CMake compiles each library's sources in
# batches of KB_UNITY_BATCH_SIZE files, one translation unit per batch, so the standard library,
# nlohmann/json, toml++, httplib and the project's own headers are parsed and their inline
# functions compiled once per batch instead of once per source. Meant for builds made once from
# scratch: `pip install .` (pyproject.toml turns it on), so the demo's and CI's build directory.
# A dev build (scripts/build) stays one source per unit: editing one file recompiles one file.
#
# The static libraries, the Python module and the two programs are batched. Every command file
# of a program defines its own `Options`, `setup` and `registration` by design
# (cli/command_registry.h), so its names live in a namespace of its own, KB_UNITY_ID, which CMake
# defines to a name unique to each file of a batch (UNITY_BUILD_UNIQUE_ID). A command file parsed
# CLI11 (header-only in Debian's 2.1) from the precompiled header below but still compiled its
# inline code again: 10-22 s a file at -O2, 390 s for the programs' 28 files in a CI build here.
# The unit test executables are batched the same way (kb_unity_test_build); they and the programs
# get a precompiled header
# (kb_precompile_headers): CLI11 or GoogleTest, with the standard headers most of their sources
# include, is parsed once per executable instead of once per source (about a third of a clean
# build here was CLI11 and gtest parsed again for each of ~135 sources).
#
# A source listed in KB_UNITY_SKIP compiles on its own. Two sources can only share a unit when
# their anonymous-namespace helpers have different names, and a class defined in a source may
# not hold a member of an anonymous-namespace type (GCC's -Wsubobject-linkage, an error with
# -Werror, fires once the source is not the main file). CI builds with KB_UNITY=ON
# (scripts/test), so a new clash fails there, not first in the demo.
option(KB_UNITY "Compile the stage libraries as unity builds (batches of sources)" OFF)
set(KB_UNITY_BATCH_SIZE 8 CACHE STRING "Sources per unity translation unit (KB_UNITY)")

# Paths relative to src/. Each one shares a helper name with another source of its library.
set(KB_UNITY_SKIP
  config/git_url.cpp          # is_digit (kernel_name.cpp)
  hub/server/server_core.cpp  # the only Beast/Asio unit: kept apart so the routes compile light
)

# Call after add_subdirectory(src): batches every static library and module under `dir`.
function(kb_unity_build dir)
  if(NOT KB_UNITY)
    return()
  endif()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    kb_unity_build("${sub}")
  endforeach()
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    get_target_property(links ${target} LINK_LIBRARIES)
    if(type STREQUAL "STATIC_LIBRARY" OR type STREQUAL "MODULE_LIBRARY")
      set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${KB_UNITY_BATCH_SIZE})
    elseif(type STREQUAL "EXECUTABLE" AND "kb_cli_common" IN_LIST links)
      set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${KB_UNITY_BATCH_SIZE}
        UNITY_BUILD_UNIQUE_ID KB_UNITY_ID)
    endif()
  endforeach()
  foreach(source IN LISTS KB_UNITY_SKIP)
    get_filename_component(source_dir "${PROJECT_SOURCE_DIR}/src/${source}" DIRECTORY)
    if(source_dir STREQUAL dir)
      set_source_files_properties("${PROJECT_SOURCE_DIR}/src/${source}" DIRECTORY "${dir}"
        PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    endif()
  endforeach()
endfunction()

# A unit test executable under KB_UNITY (tests/unit/CMakeLists.txt): its sources whose names live in
# `namespace KB_UNITY_ID` (inside their anonymous namespace, as in the programs' command files) are
# batched; a source without it compiles on its own, as in a dev build.
function(kb_unity_test_build target)
  if(NOT KB_UNITY)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${KB_UNITY_BATCH_SIZE}
    UNITY_BUILD_UNIQUE_ID KB_UNITY_ID)
  foreach(source IN LISTS ARGN)
    file(READ "${CMAKE_CURRENT_SOURCE_DIR}/${source}" text)
    string(FIND "${text}" "namespace KB_UNITY_ID {" marker)
    if(marker EQUAL -1)
      set_source_files_properties(${source} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    endif()
  endforeach()
endfunction()

# Call after add_subdirectory(src) and tests/unit: a precompiled header per program (CLI11) and per
# unit test executable (GoogleTest), under KB_UNITY only (builds made once from scratch; ccache
# does not cache sources compiled with a precompiled header unless told to, which a dev build
# would notice).
function(kb_precompile_headers dir)
  if(NOT KB_UNITY)
    return()
  endif()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    kb_precompile_headers("${sub}")
  endforeach()
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(NOT type STREQUAL "EXECUTABLE")
      continue()
    endif()
    get_target_property(links ${target} LINK_LIBRARIES)
    if("GTest::gtest_main" IN_LIST links)
      # One header for all the test executables compiled with the same options and definitions
      # (e.g. the unit tests' own -O0, or the build type's optimization for OPTIMIZED ones): the
      # first such target builds it, the others reuse it (15 copies were 60 CPU-seconds of a CI
      # build). GCC refuses a header built with other options (-Winvalid-pch, an error under -Werror).
      get_target_property(options ${target} COMPILE_OPTIONS)
      get_target_property(definitions ${target} COMPILE_DEFINITIONS)
      string(MAKE_C_IDENTIFIER "${options};${definitions}" group)
      get_property(owner GLOBAL PROPERTY KB_GTEST_PCH_${group})
      if(owner)
        target_precompile_headers(${target} REUSE_FROM ${owner})
      else()
        set_property(GLOBAL PROPERTY KB_GTEST_PCH_${group} ${target})
        target_precompile_headers(${target} PRIVATE <gtest/gtest.h> <filesystem> <map> <string> <vector>)
      endif()
      # GCC 12 reports std::string's operator+ inlined into a std::filesystem::path temporary as
      # out of bounds (-Warray-bounds, -Wstringop-overflow, -Wstringop-overread: known false
      # positives of that release's middle end) once the standard headers come from a precompiled
      # header, where it no longer counts them as system headers: seen in three test files, not in
      # the libraries or programs.
      if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
        target_compile_options(${target} PRIVATE -Wno-array-bounds -Wno-stringop-overflow -Wno-stringop-overread)
      endif()
    elseif("kb_cli_common" IN_LIST links)
      target_precompile_headers(${target} PRIVATE <CLI/CLI.hpp> <filesystem> <iostream> <memory> <string> <vector>)
    endif()
  endforeach()
endfunction()
