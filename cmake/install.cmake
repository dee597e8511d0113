# What `cmake --install` puts where, for C++ consumers of the runtime:
#   find_package(exactune CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE exactune::runtime)
# gives libexactune_runtime.so (every family's entry, the tables built in, NVRTC
# on first use), its C headers (<exactune/runtime.h>, each family's
# "<family>/runtime/exactune_<family>.h") and the generated tables header
# <exactune/exactune_tables.hpp> (select() of every family and GPU, C++17, no
# library needed), and beside the library the kernel export
# (lib/exactune_export/: every kernel the tables serve, compiled by `exactune
# export` at install time), which the runtime loads instead of calling NVRTC:
# no CUDA toolkit at run time for what the export holds (docs/runtime.md).
# -DEXACTUNE_INSTALL_KERNEL_EXPORT=OFF leaves it out (every first sight is then
# compiled by NVRTC). tests/consumer/ builds a project against the installed tree.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(EXACTUNE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/exactune)
set(EXACTUNE_INSTALL_FAMILY_HEADERS ${CMAKE_INSTALL_INCLUDEDIR}/exactune/families)

set_target_properties(exactune_runtime PROPERTIES EXPORT_NAME runtime
  # NVRTC is the one library outside the system the runtime needs; the driver is opened at run time.
  INSTALL_RPATH ${CUDAToolkit_LIBRARY_DIR})
target_include_directories(exactune_runtime INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
                                                      $<INSTALL_INTERFACE:${EXACTUNE_INSTALL_FAMILY_HEADERS}>)
install(TARGETS exactune_runtime EXPORT exactuneTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES include/exactune/runtime.h reports/tables/exactune_tables.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/exactune)
# Each family's C header keeps its place under families/, as the headers include one another.
file(GLOB EXACTUNE_FAMILY_HEADERS RELATIVE ${CMAKE_SOURCE_DIR}/families
     ${CMAKE_SOURCE_DIR}/families/*/runtime/exactune_*.h)
foreach(header ${EXACTUNE_FAMILY_HEADERS})
  get_filename_component(folder ${header} DIRECTORY)
  install(FILES families/${header} DESTINATION ${EXACTUNE_INSTALL_FAMILY_HEADERS}/${folder})
endforeach()

install(EXPORT exactuneTargets NAMESPACE exactune:: DESTINATION ${EXACTUNE_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/exactuneConfig.cmake.in ${CMAKE_BINARY_DIR}/exactuneConfig.cmake
                              INSTALL_DESTINATION ${EXACTUNE_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/exactuneConfigVersion.cmake VERSION ${PROJECT_VERSION}
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/exactuneConfig.cmake ${CMAKE_BINARY_DIR}/exactuneConfigVersion.cmake
        DESTINATION ${EXACTUNE_INSTALL_CMAKEDIR})

option(EXACTUNE_INSTALL_KERNEL_EXPORT "cmake --install writes the kernel export beside the runtime library" ON)
if(EXACTUNE_INSTALL_KERNEL_EXPORT)
  # Made by the exactune built here, with its compile cache ($EXACTUNE_CACHE_DIR, else the user's).
  install(CODE "
    set(export_dir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/exactune_export\")
    file(REMOVE_RECURSE \"\${export_dir}\")
    message(STATUS \"Exporting the served kernels: \${export_dir}\")
    execute_process(COMMAND \"$<TARGET_FILE:exactune>\" export --out \"\${export_dir}\"
                    RESULT_VARIABLE export_status OUTPUT_VARIABLE export_out ERROR_VARIABLE export_err)
    if(NOT export_status EQUAL 0)
      message(FATAL_ERROR \"exactune export failed (\${export_status}): \${export_err}\")
    endif()
    string(REGEX MATCH \"export: [^\\n]*\" export_summary \"\${export_out}\")
    message(STATUS \"\${export_summary}\")")
endif()
