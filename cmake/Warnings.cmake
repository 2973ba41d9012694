# Warning set shared by every target of ours (never applied to third-party code).
add_library(kb_warnings INTERFACE)
target_compile_options(kb_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Wunused -Woverloaded-virtual -Wformat=2 -Wimplicit-fallthrough)
if(KB_WERROR)
  target_compile_options(kb_warnings INTERFACE -Werror)
endif()
