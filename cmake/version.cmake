# The one version of rope2d: the project's semantic version plus the commit it was built from,
# as semver build metadata (0.1.0+ec93437, or 0.1.0+ec93437.dirty), a valid PEP 440 local
# version too. `rope2d --version`, the C API's rope2d_version() and so rope2d.__version__, and
# the wheel's version (read by python/setup.py from build/python/VERSION) all print it.
execute_process(COMMAND git describe --always --dirty --tags WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                OUTPUT_VARIABLE _rope2d_commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
set(ROPE2D_VERSION_FULL ${PROJECT_VERSION})
if(_rope2d_commit)
  string(REGEX REPLACE "[^0-9A-Za-z]+" "." _rope2d_commit "${_rope2d_commit}")
  string(APPEND ROPE2D_VERSION_FULL "+${_rope2d_commit}")
endif()
file(WRITE ${CMAKE_BINARY_DIR}/python/VERSION.new "${ROPE2D_VERSION_FULL}\n")
file(COPY_FILE ${CMAKE_BINARY_DIR}/python/VERSION.new ${CMAKE_BINARY_DIR}/python/VERSION ONLY_IF_DIFFERENT)
file(REMOVE ${CMAKE_BINARY_DIR}/python/VERSION.new)

# Compiled into two small files only, so a new commit rebuilds little.
function(rope2d_version_define)
  target_sources(rope2d PRIVATE ${PROJECT_SOURCE_DIR}/verify/cli/version.cpp)
  set_source_files_properties(${PROJECT_SOURCE_DIR}/verify/cli/version.cpp TARGET_DIRECTORY rope2d
                              PROPERTIES COMPILE_DEFINITIONS "ROPE2D_VERSION_FULL=\"${ROPE2D_VERSION_FULL}\"")
  set_source_files_properties(${PROJECT_SOURCE_DIR}/verify/src/products/capi/capi.cpp TARGET_DIRECTORY rope2d_py
                              PROPERTIES COMPILE_DEFINITIONS "ROPE2D_VERSION_FULL=\"${ROPE2D_VERSION_FULL}\"")
endfunction()
