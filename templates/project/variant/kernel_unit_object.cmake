# Build step of kernel_units.cmake (cmake -P): UNIT, one kernel unit's objects combined by
# `ld -r --force-group-allocation`, becomes OUTPUT, whose symbols are local except those that the
# objects listed in the file OTHERS leave undefined (what the binding and the other units use from
# it) and PyInit_*.
#
# The combining dissolved the COMDAT groups of inline and template code: as groups, the final link
# would keep one unit's copy of a same-named group and drop the other's, which the localized
# references of the other unit still point into.
foreach(var OBJCOPY NM UNIT OTHERS OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "kernel_unit_object.cmake: ${var} is not set")
  endif()
endforeach()

file(STRINGS "${OTHERS}" others)
set(combined "${UNIT}")

# Symbols to keep global: undefined in the other objects, and the Python module's entry point.
set(keep "")
if(others)
  execute_process(COMMAND "${NM}" --undefined-only --portability ${others}
                  OUTPUT_VARIABLE listing RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "nm of ${OTHERS} failed")
  endif()
  string(REGEX MATCHALL "(^|\n)[^ \n:]+ [Uvw]" undefined "${listing}")
  foreach(entry IN LISTS undefined)
    string(REGEX REPLACE "^\n?([^ ]+) .*$" "\\1" name "${entry}")
    list(APPEND keep "${name}")
  endforeach()
endif()
execute_process(COMMAND "${NM}" --defined-only --extern-only --portability "${combined}"
                OUTPUT_VARIABLE listing RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "nm of ${combined} failed")
endif()
string(REGEX MATCHALL "(^|\n)PyInit_[^ \n]+" entries "${listing}")
foreach(entry IN LISTS entries)
  string(STRIP "${entry}" name)
  list(APPEND keep "${name}")
endforeach()
list(REMOVE_DUPLICATES keep)
list(SORT keep)
list(JOIN keep "\n" text)
file(WRITE "${OUTPUT}.keep" "${text}\n")

execute_process(COMMAND "${OBJCOPY}" "--keep-global-symbols=${OUTPUT}.keep" "${combined}" "${OUTPUT}"
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "objcopy --keep-global-symbols of ${combined} failed")
endif()
