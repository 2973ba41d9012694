# The builder's own version and source commit, recorded in --version and metadata provenance.
execute_process(COMMAND git rev-parse HEAD
  WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
  OUTPUT_VARIABLE KB_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git status --porcelain --untracked-files=no
  WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
  OUTPUT_VARIABLE KB_GIT_STATUS OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT KB_GIT_COMMIT MATCHES "^[0-9a-f]+$")
  set(KB_GIT_COMMIT "")
endif()
if(KB_GIT_STATUS)
  set(KB_GIT_DIRTY true)
else()
  set(KB_GIT_DIRTY false)
endif()
set(KB_VERSION "${PROJECT_VERSION}")
