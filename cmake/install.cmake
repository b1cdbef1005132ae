# `cmake --install build --prefix P`: the rope2d program in P/bin (with CUDA, its helper
# sincosf_ulp in P/libexec/rope2d), the libraries and public
# headers in P/lib and P/include, the data the program reads (golden smoke set, worst-case
# lists, ABI headers for submission builds, the Python package's sources) in P/share/rope2d under their
# repository paths, the JSON Schemas in P/share/rope2d/schemas, and the CMake package (find_package(rope2d): rope2d::verify, rope2d::capi...).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The data tree: the installed program finds it from its own location (verify/cli/commands.hpp,
# repo_file: <prefix>/bin/rope2d -> <prefix>/share/rope2d/<repository path>).
set(ROPE2D_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/rope2d)
set(ROPE2D_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/rope2d)

# Include directories of the exported libraries: the source folders when built here, P/include
# when installed.
function(rope2d_install_interface target)
  get_target_property(dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
  set(wrapped)
  foreach(d IN LISTS dirs)
    if(d AND NOT d MATCHES "^\\$<")
      list(APPEND wrapped "$<BUILD_INTERFACE:${d}>")
    elseif(d)
      list(APPEND wrapped "${d}")
    endif()
  endforeach()
  list(APPEND wrapped "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
  set_property(TARGET ${target} PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${wrapped}")
endfunction()

set(_rope2d_exported rope2d_abi rope2d_reference rope2d_verify rope2d_py)
if(ROPE2D_HAVE_CUDA)
  list(APPEND _rope2d_exported rope2d_kernel)
endif()
# And every library of this project that an exported static library links (an export must hold
# them all), so a new internal library needs no edit here.
set(_rope2d_i 0)
list(LENGTH _rope2d_exported _rope2d_n)
while(_rope2d_i LESS _rope2d_n)
  list(GET _rope2d_exported ${_rope2d_i} _t)
  get_target_property(_type ${_t} TYPE)
  if(_type MATCHES "^(STATIC_LIBRARY|INTERFACE_LIBRARY)$")
    get_target_property(_links ${_t} INTERFACE_LINK_LIBRARIES)
    foreach(_l IN LISTS _links)
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" _l "${_l}")
      if(TARGET ${_l} AND NOT ${_l} IN_LIST _rope2d_exported)
        get_target_property(_imported ${_l} IMPORTED)
        if(NOT _imported)
          list(APPEND _rope2d_exported ${_l})
        endif()
      endif()
    endforeach()
  endif()
  math(EXPR _rope2d_i "${_rope2d_i} + 1")
  list(LENGTH _rope2d_exported _rope2d_n)
endwhile()
foreach(t IN LISTS _rope2d_exported)
  rope2d_install_interface(${t})
endforeach()
# A consumer compiles the C++ headers as C++20, as this project does.
target_compile_features(rope2d_reference INTERFACE cxx_std_20)
set_target_properties(rope2d_abi PROPERTIES EXPORT_NAME abi)
set_target_properties(rope2d_reference PROPERTIES EXPORT_NAME reference)
set_target_properties(rope2d_verify PROPERTIES EXPORT_NAME verify)
# librope2d_py.so: the C API of verify/include/rope2d/verify/products/capi.h (what the Python package loads).
set_target_properties(rope2d_py PROPERTIES EXPORT_NAME capi)
target_include_directories(rope2d_py INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/verify/include>)
if(ROPE2D_HAVE_CUDA)
  set_target_properties(rope2d_kernel PROPERTIES EXPORT_NAME kernel)
endif()

install(TARGETS rope2d rope2d-kernel-host RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The nightly's measurement of the sincosf premise, where an installed rope2d looks for it
# (verify/src/harness/spawn.cpp, find_own_program: <prefix>/<libexec>/rope2d), not on the PATH.
if(ROPE2D_HAVE_CUDA)
  install(TARGETS sincosf_ulp RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/rope2d)
endif()
install(TARGETS ${_rope2d_exported} EXPORT rope2dTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# An installed librope2d_py.so finds MPFR and GMP where the system keeps them.
set_target_properties(rope2d_py PROPERTIES INSTALL_RPATH "")

# Public headers: the submission ABI (C), the reference, the verifier (C++ and its C API).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/cuda/include/ ${PROJECT_SOURCE_DIR}/reference/include/
                  ${PROJECT_SOURCE_DIR}/verify/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")
# The header generated from reference/proofs/formulas.def.
install(FILES ${ROPE2D_GENERATED_INCLUDE}/rope2d/ref/bound_formulas.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rope2d/ref)

# The data the program reads, under the paths it has in the repository.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/golden-smoke DESTINATION ${ROPE2D_INSTALL_DATADIR}/data)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/reference/worst DESTINATION ${ROPE2D_INSTALL_DATADIR}/reference)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/cuda/include DESTINATION ${ROPE2D_INSTALL_DATADIR}/cuda)
# The Python package's sources (not its library: the program needs none), for the modules the
# program runs with the package's folder first on sys.path (verify/cli/commands.hpp,
# python_module_command): the solution runner (python3 -m rope2d.runner) and the torch peers of
# `rope2d bench --torch` (rope2d.bench_torch).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/rope2d DESTINATION ${ROPE2D_INSTALL_DATADIR}/python
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
# The JSON Schemas of every file the verifier reads, for users to validate their files with
# (docs/schemas.md); the program itself uses the copies embedded at build time.
install(FILES ${ROPE2D_SCHEMA_FILES} DESTINATION ${ROPE2D_INSTALL_DATADIR}/schemas)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The package: targets, dependencies of the static libraries, version, and rope2d_DATA_DIR.
install(EXPORT rope2dTargets NAMESPACE rope2d:: DESTINATION ${ROPE2D_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/rope2dConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/cmake/rope2dConfig.cmake
                              INSTALL_DESTINATION ${ROPE2D_INSTALL_CMAKEDIR}
                              PATH_VARS ROPE2D_INSTALL_DATADIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/rope2dConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/rope2dConfig.cmake ${CMAKE_BINARY_DIR}/cmake/rope2dConfigVersion.cmake
        DESTINATION ${ROPE2D_INSTALL_CMAKEDIR})
