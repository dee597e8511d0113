# The core names no family: fails, listing file:line, when a file outside
# families/ names a kernel family, its C++ types, or a family's problem
# parameters. Left out: families/ itself, the problem sets of shapes/ (each is a
# family's problems, in its parameters), the generated reports (they record
# their family by design), the families' front ends (python/: their torch ops;
# examples/), prose (README.md, docs/), the vendored Catch2, and this file,
# which must spell the names it looks for.
#   cmake -DSOURCE_DIR=<repo> -P core_names_no_family.cmake
set(names
  layer_norm_modulate LayerNormModulate Modulate modulate modulation
  qk_head_layer_norm QkHeadLayerNorm
  gated_residual_layer_norm_modulate GatedResidual
  hidden eps modulation_rows modulation_stride heads head_dim)
list(JOIN names "|" alternatives)
set(word "(^|[^A-Za-z0-9_])(${alternatives})([^A-Za-z0-9_]|$)")

file(GLOB_RECURSE candidates LIST_DIRECTORIES false RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/*)
set(found "")
foreach(path IN LISTS candidates)
  if(path MATCHES "^(\\.git|build[^/]*|families|shapes|reports|docs|python|examples|\\.whl|\\.gl)/" OR path STREQUAL "README.md"
     OR path STREQUAL "tests/catch.hpp" OR path STREQUAL "tests/core_names_no_family.cmake"
     # A consumer of the installed product, which calls its families by name as any consumer does.
     OR path MATCHES "^tests/consumer/")
    continue()
  endif()
  file(STRINGS ${SOURCE_DIR}/${path} lines REGEX "${word}")
  foreach(line IN LISTS lines)
    # A compiler flag and an assembler directive spell one of the words and mean something else.
    string(REPLACE "-fvisibility=hidden" "" words "${line}")
    string(REPLACE ".hidden " "" words "${words}")
    if(NOT words MATCHES "${word}")
      continue()
    endif()
    string(STRIP "${line}" line)
    string(REPLACE ";" "," line "${line}")
    list(APPEND found "${path}: ${CMAKE_MATCH_2}: ${line}")
  endforeach()
endforeach()
if(found)
  list(LENGTH found count)
  list(JOIN found "\n  " listing)
  message(FATAL_ERROR "${count} line(s) outside families/ name a family or its parameters:\n  ${listing}")
endif()
message(STATUS "no file outside families/ names a family or its parameters")
