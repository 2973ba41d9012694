# kb_embed_directory(<target> <namespace> <dir>): compile every file under <dir> into <target>
# as a sorted table of (relative path, bytes), reachable through `<namespace>::embedded_files()`
# (declared in util/embedded.h). Templates and data files live as real files in the repository
# and are baked into the binary so that the tools need nothing on disk at run time.
function(kb_embed_directory target namespace dir)
  file(GLOB_RECURSE files RELATIVE "${dir}" CONFIGURE_DEPENDS "${dir}/*")
  list(SORT files)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded_${namespace}.cpp")
  set(abs_files "")
  foreach(f IN LISTS files)
    list(APPEND abs_files "${dir}/${f}")
  endforeach()
  add_custom_command(OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DNS=${namespace} -DDIR=${dir}
            -P "${PROJECT_SOURCE_DIR}/cmake/EmbedScript.cmake"
    DEPENDS ${abs_files} "${PROJECT_SOURCE_DIR}/cmake/EmbedScript.cmake"
    COMMENT "Embedding ${dir}" VERBATIM)
  target_sources(${target} PRIVATE "${out}")
endfunction()
