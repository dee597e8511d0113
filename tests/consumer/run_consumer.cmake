# ctest's cpp_consumer_of_the_installed_runtime: `cmake --install` of the build
# into a fresh prefix (the kernel export included), then tests/consumer
# configured against that prefix alone, built and run: a table query, and the
# runtime finding the installed export. Each step that fails stops the test, naming the step.
#   cmake -DBUILD=<exactune build> -DSOURCE=<tests/consumer> -DWORK=<scratch> -P run_consumer.cmake
foreach(required BUILD SOURCE WORK)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "run_consumer.cmake needs -D${required}=...")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK})

function(step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${name} failed (${status}):\n${err}")
  endif()
endfunction()

step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
step("configuring the consumer" ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/build -DCMAKE_PREFIX_PATH=${WORK}/prefix
     -DCMAKE_BUILD_TYPE=Release)
step("building the consumer" ${CMAKE_COMMAND} --build ${WORK}/build)
step("running the consumer" ${WORK}/build/table_query)
# EXACTUNE_EXPORT_DIR would name another export than the installed one.
step("finding the installed kernel export" ${CMAKE_COMMAND} -E env --unset=EXACTUNE_EXPORT_DIR
     ${WORK}/build/export_query ${WORK}/prefix)
