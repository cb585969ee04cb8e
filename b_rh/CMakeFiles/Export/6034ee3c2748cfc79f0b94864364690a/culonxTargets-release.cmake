#----------------------------------------------------------------
# Generated CMake target import file for configuration "Release".
#----------------------------------------------------------------

# Commands may need to know the format version.
set(CMAKE_IMPORT_FILE_VERSION 1)

# Import target "culonx::culonx_static" for configuration "Release"
set_property(TARGET culonx::culonx_static APPEND PROPERTY IMPORTED_CONFIGURATIONS RELEASE)
set_target_properties(culonx::culonx_static PROPERTIES
  IMPORTED_LINK_INTERFACE_LANGUAGES_RELEASE "C"
  IMPORTED_LOCATION_RELEASE "${_IMPORT_PREFIX}/lib/libculonx.a"
  )

list(APPEND _cmake_import_check_targets culonx::culonx_static )
list(APPEND _cmake_import_check_files_for_culonx::culonx_static "${_IMPORT_PREFIX}/lib/libculonx.a" )

# Import target "culonx::culonx" for configuration "Release"
set_property(TARGET culonx::culonx APPEND PROPERTY IMPORTED_CONFIGURATIONS RELEASE)
set_target_properties(culonx::culonx PROPERTIES
  IMPORTED_LOCATION_RELEASE "${_IMPORT_PREFIX}/lib/libculonx.so.0.1.0"
  IMPORTED_SONAME_RELEASE "libculonx.so.0.1"
  )

list(APPEND _cmake_import_check_targets culonx::culonx )
list(APPEND _cmake_import_check_files_for_culonx::culonx "${_IMPORT_PREFIX}/lib/libculonx.so.0.1.0" )

# Commands beyond this point should not need to know the version.
set(CMAKE_IMPORT_FILE_VERSION)
