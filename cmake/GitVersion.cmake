# The builder's own version and source commit, recorded in --version and metadata provenance.
# The commit and the dirty flag are read at every build, not only when CMake configures: an
# incremental build after a commit, a checkout or an edit records the tree it was built from.
# The generated header changes only when they do (cmake/GitVersionHeader.cmake), so an unchanged
# tree recompiles nothing.
set(KB_VERSION "${PROJECT_VERSION}")
set(KB_GIT_VERSION_DIR "${CMAKE_BINARY_DIR}/generated/git-version")
add_custom_target(kb_git_version
  COMMAND "${CMAKE_COMMAND}" "-DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR}" "-DOUTPUT=${KB_GIT_VERSION_DIR}/kb_git_version.h"
          -P "${CMAKE_CURRENT_LIST_DIR}/GitVersionHeader.cmake"
  BYPRODUCTS "${KB_GIT_VERSION_DIR}/kb_git_version.h"
  COMMENT "Reading the source commit of the builder"
  VERBATIM)
