# The default build is what the main job (`rope2d verify`) and `cmake --install` need: the
# program and the libraries it and the package install. Every other target built here (tests,
# properties, generators, fuzz drivers) leaves `all` and joins `tests`, which the test command
# builds before ctest (`bash .ci/setup.sh --tests`). Included last, so it sees every target.
set(ROPE2D_DEFAULT_TARGETS rope2d rope2d-kernel-host ${_rope2d_exported})
if(ROPE2D_HAVE_CUDA)
  list(APPEND ROPE2D_DEFAULT_TARGETS sincosf_ulp)  # the nightly runs it, and it is installed
endif()

function(rope2d_targets_under dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    rope2d_targets_under(${sub} more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

add_custom_target(tests)
rope2d_targets_under(${PROJECT_SOURCE_DIR} _rope2d_all_targets)
foreach(t IN LISTS _rope2d_all_targets)
  get_target_property(type ${t} TYPE)
  get_target_property(excluded ${t} EXCLUDE_FROM_ALL)
  if(type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$"
     AND NOT excluded AND NOT t IN_LIST ROPE2D_DEFAULT_TARGETS)
    set_target_properties(${t} PROPERTIES EXCLUDE_FROM_ALL ON)
    add_dependencies(tests ${t})
  endif()
endforeach()
# The tests also use everything in the default build.
add_dependencies(tests ${ROPE2D_DEFAULT_TARGETS})
