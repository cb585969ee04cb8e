# install.cmake — libculonx as an installable library (included by the top
# CMakeLists.txt after the culonx_lib and culonx targets exist):
#   culonx_shared  libculonx.so.<SOVERSION>, linked from culonx_lib's objects
#                  (position independent, -fvisibility=hidden: only the
#                  CULONX_API functions of core/include/culonx.h are exported)
#   culonx_man     share/man/man1/culonx.1 from `culonx --help` / `--version`
#                  by help2man (skipped with a message when it is missing)
# and the install rules:
#   bin/culonx
#   lib/libculonx.a, lib/libculonx.so*            (CMAKE_INSTALL_LIBDIR)
#   include/culonx.h, include/culonx_types.h
#   lib/pkgconfig/culonx.pc                        (from culonx.pc.in)
#   lib/cmake/culonx/culonx{Config,ConfigVersion,Targets*}.cmake:
#       find_package(culonx) gives culonx::culonx (shared) and
#       culonx::culonx_static
#   share/culonx/culonx.xsd, share/culonx/configs/ (the shipped configs/)
#   share/man/man1/culonx.1
include(CMakePackageConfigHelpers)

option(CULONX_SHARED "Build libculonx.so besides libculonx.a" ON)
if(CULONX_FUZZ)
  set(CULONX_SHARED OFF) # fuzzer-instrumented objects are not for a shared library
endif()

# 0.x releases promise no ABI: the soname carries major.minor until 1.0.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(CX_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
else()
  set(CX_SOVERSION ${PROJECT_VERSION_MAJOR})
endif()

# PIC objects for both libraries: keep calls between library functions
# direct and inlinable (CULONX_API functions are not interposed).
include(CheckCCompilerFlag)
check_c_compiler_flag(-fno-semantic-interposition CX_HAVE_NO_INTERPOSITION)
if(CX_HAVE_NO_INTERPOSITION)
  target_compile_options(culonx_lib PRIVATE -fno-semantic-interposition)
endif()

set(CX_EXPORTED culonx_lib)
if(CULONX_SHARED)
  add_library(culonx_shared SHARED $<TARGET_OBJECTS:culonx_lib>)
  set_target_properties(culonx_shared PROPERTIES OUTPUT_NAME culonx EXPORT_NAME culonx
    VERSION ${PROJECT_VERSION} SOVERSION ${CX_SOVERSION} C_VISIBILITY_PRESET hidden)
  target_include_directories(culonx_shared PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/core> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  # culonx_lib's link interface (libxml2, threads, dl, m, MPI), privately.
  target_link_libraries(culonx_shared PRIVATE $<TARGET_PROPERTY:culonx_lib,INTERFACE_LINK_LIBRARIES>)
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux" AND NOT CULONX_SANITIZE)
    target_link_options(culonx_shared PRIVATE -Wl,--no-undefined)
  endif()
  list(APPEND CX_EXPORTED culonx_shared)
endif()

# Man page. help2man runs the freshly built culonx.
option(CULONX_MAN "Generate the man page with help2man (when found)" ON)
if(CULONX_MAN)
  find_program(HELP2MAN_EXECUTABLE help2man)
endif()
set(CX_MAN ${PROJECT_BINARY_DIR}/culonx.1)
if(CULONX_MAN AND HELP2MAN_EXECUTABLE)
  add_custom_command(OUTPUT ${CX_MAN}
    COMMAND ${HELP2MAN_EXECUTABLE} --no-info --no-discard-stderr
            --name "analytical cost model for LLM training (time, memory, energy)"
            --include ${CMAKE_CURRENT_LIST_DIR}/culonx.h2m
            --output ${CX_MAN} $<TARGET_FILE:culonx>
    DEPENDS culonx ${CMAKE_CURRENT_LIST_DIR}/culonx.h2m VERBATIM)
  add_custom_target(culonx_man ALL DEPENDS ${CX_MAN})
  install(FILES ${CX_MAN} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  if(CULONX_MAN)
    set(CX_NO_MAN "culonx: help2man not found: no man page (Debian: apt-get install help2man)")
  else()
    set(CX_NO_MAN "culonx: CULONX_MAN=OFF: no man page")
  endif()
  message(STATUS "${CX_NO_MAN}")
  add_custom_target(culonx_man COMMAND ${CMAKE_COMMAND} -E echo "${CX_NO_MAN}" VERBATIM)
endif()

# pkg-config: relocatable (paths relative to the .pc file); the private
# libraries are what a static link (pkg-config --static) needs.
set(CX_PC_LIBS_PRIVATE "")
foreach(lib pthread ${CMAKE_DL_LIBS} m)
  string(APPEND CX_PC_LIBS_PRIVATE " -l${lib}")
endforeach()
if(MPI_C_FOUND AND CULONX_MPI)
  foreach(flag ${MPI_C_LINK_FLAGS})
    string(APPEND CX_PC_LIBS_PRIVATE " ${flag}")
  endforeach()
  foreach(lib ${MPI_C_LIBRARIES})
    string(APPEND CX_PC_LIBS_PRIVATE " ${lib}")
  endforeach()
endif()
string(APPEND CX_PC_LIBS_PRIVATE " -lcsv")
if(CX_WITH_CHAKRA)
  string(APPEND CX_PC_LIBS_PRIVATE " -lprotobuf-c")
endif()
string(STRIP "${CX_PC_LIBS_PRIVATE}" CX_PC_LIBS_PRIVATE)
file(RELATIVE_PATH CX_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" CX_PC_TO_PREFIX "${CX_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/culonx.pc.in ${PROJECT_BINARY_DIR}/culonx.pc @ONLY)

# CMake package.
set(CX_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/culonx)
if(MPI_C_FOUND AND CULONX_MPI)
  set(CX_WITH_MPI ON)
else()
  set(CX_WITH_MPI OFF)
endif()
set(CX_DATADIR ${CMAKE_INSTALL_DATADIR}/culonx)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/culonxConfig.cmake.in
  ${PROJECT_BINARY_DIR}/culonxConfig.cmake INSTALL_DESTINATION ${CX_CMAKE_DIR}
  PATH_VARS CX_DATADIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/culonxConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)

install(TARGETS culonx RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${CX_EXPORTED} EXPORT culonxTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/core/include/culonx.h ${PROJECT_SOURCE_DIR}/core/include/culonx_types.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/culonx.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(EXPORT culonxTargets NAMESPACE culonx:: DESTINATION ${CX_CMAKE_DIR})
install(FILES ${PROJECT_BINARY_DIR}/culonxConfig.cmake ${PROJECT_BINARY_DIR}/culonxConfigVersion.cmake
  DESTINATION ${CX_CMAKE_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/configs/culonx.xsd DESTINATION ${CMAKE_INSTALL_DATADIR}/culonx)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/culonx/configs)
