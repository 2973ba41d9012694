# Language level, position-independent code (the core also links into a Python module),
# compile_commands.json for tooling, and the optional sanitizer build.
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()
# The `CI` build type (scripts/test): RelWithDebInfo's optimization (-O2) without its debug
# information, which is about a third of a clean build's time here, for a build made once from
# scratch and then only tested. (Release is CMake's -O3: slower to compile, and GCC 12 reports
# false -Wstringop-overflow positives in libstdc++ at -O3.) A CI failure is debugged in a
# scripts/build directory (RelWithDebInfo).
# project() already made an empty cache entry for the build type it was configured with.
if(NOT CMAKE_CXX_FLAGS_CI)
  set(CMAKE_CXX_FLAGS_CI "-O2 -DNDEBUG" CACHE STRING "C++ flags of the CI build type (scripts/test)" FORCE)
endif()
mark_as_advanced(CMAKE_CXX_FLAGS_CI)

find_program(KB_CCACHE ccache)
if(KB_CCACHE)
  set(CMAKE_CXX_COMPILER_LAUNCHER "${KB_CCACHE}")
endif()

if(KB_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
