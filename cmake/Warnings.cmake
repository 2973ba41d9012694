# Warning set shared by every target of ours (never applied to third-party code).
add_library(kb_warnings INTERFACE)
target_compile_options(kb_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Wunused -Woverloaded-virtual -Wformat=2 -Wimplicit-fallthrough)
# GCC 12 reports -Wrestrict false positives inside libstdc++'s std::string concatenation at -O2
# (GCC bug 105329); they are not about our code.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(kb_warnings INTERFACE -Wno-restrict)
endif()
if(KB_WERROR)
  target_compile_options(kb_warnings INTERFACE -Werror)
endif()
