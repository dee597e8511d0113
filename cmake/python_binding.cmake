# exactune's torch-free binding (python/exactune/dlpack_ops/): a CPython module
# on the runtime's C ABI and Python's C API alone, which reads a framework's
# tensors through the DLPack exchange API (exactune.torch_dlpack). Built where
# Python's development headers are (Debian: python3-dev); the wheel carries it
# beside the runtime library, which it finds through $ORIGIN.
find_package(Python3 COMPONENTS Interpreter Development.Module)
if(Python3_Development.Module_FOUND)
  file(GLOB EXACTUNE_DLPACK_SOURCES ${CMAKE_SOURCE_DIR}/python/exactune/dlpack_ops/*.cpp)
  Python3_add_library(exactune_dlpack MODULE WITH_SOABI ${EXACTUNE_DLPACK_SOURCES})
  set_target_properties(exactune_dlpack PROPERTIES OUTPUT_NAME _exactune_dlpack
                        LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR} BUILD_RPATH "$ORIGIN")
  target_include_directories(exactune_dlpack PRIVATE ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/families)
  target_link_libraries(exactune_dlpack PRIVATE exactune_runtime)
  target_compile_options(exactune_dlpack PRIVATE -Wall -Wextra)
else()
  message(STATUS "exactune_dlpack (the torch-free binding) is not built: no Python development headers")
endif()
