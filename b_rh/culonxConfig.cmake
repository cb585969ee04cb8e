# CMake package of libculonx (generated from core/pkg/culonxConfig.cmake.in).
#   find_package(culonx)
#   target_link_libraries(app PRIVATE culonx::culonx)         # libculonx.so
#   target_link_libraries(app PRIVATE culonx::culonx_static)  # libculonx.a
# culonx_DATADIR is share/culonx (culonx.xsd, configs/).

####### Expanded from @PACKAGE_INIT@ by configure_package_config_file() #######
####### Any changes to this file will be overwritten by the next CMake run ####
####### The input file was culonxConfig.cmake.in                            ########

get_filename_component(PACKAGE_PREFIX_DIR "${CMAKE_CURRENT_LIST_DIR}/../../../" ABSOLUTE)

macro(set_and_check _var _file)
  set(${_var} "${_file}")
  if(NOT EXISTS "${_file}")
    message(FATAL_ERROR "File or directory ${_file} referenced by variable ${_var} does not exist !")
  endif()
endmacro()

macro(check_required_components _NAME)
  foreach(comp ${${_NAME}_FIND_COMPONENTS})
    if(NOT ${_NAME}_${comp}_FOUND)
      if(${_NAME}_FIND_REQUIRED_${comp})
        set(${_NAME}_FOUND FALSE)
      endif()
    endif()
  endforeach()
endmacro()

####################################################################################

include(CMakeFindDependencyMacro)
# libculonx.a's link interface: libxml2, zlib (through pkg-config, as in the
# build), threads, dl, m and MPI when the library was built with it.
find_dependency(Threads)
find_dependency(ZLIB)
find_dependency(PkgConfig)
if(NOT TARGET PkgConfig::LIBXML2)
  pkg_check_modules(LIBXML2 REQUIRED QUIET IMPORTED_TARGET libxml-2.0)
endif()
if(NOT TARGET PkgConfig::JANSSON)
  pkg_check_modules(JANSSON REQUIRED QUIET IMPORTED_TARGET jansson)
endif()
if(1 AND NOT TARGET PkgConfig::PROTOBUFC)
  pkg_check_modules(PROTOBUFC REQUIRED QUIET IMPORTED_TARGET libprotobuf-c)
endif()
if(ON)
  find_dependency(MPI COMPONENTS C)
endif()

include(${CMAKE_CURRENT_LIST_DIR}/culonxTargets.cmake)
if(NOT TARGET culonx::culonx)
  add_library(culonx::culonx ALIAS culonx::culonx_static) # built without the shared library
endif()
set_and_check(culonx_DATADIR "${PACKAGE_PREFIX_DIR}/share/culonx")
check_required_components(culonx)
