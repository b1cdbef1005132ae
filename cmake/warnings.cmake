# Compiler diagnostics of the project's own code. The default build prints no warning; with
# -DROPE2D_WERROR=ON (CI: .ci/run) any warning of a C++ file fails the build.
# GCC 12 reports -Wrestrict inside libstdc++ for `"literal" + std::string` wherever the
# optimizer inlines it (GCC bug 105329, fixed in GCC 13): a false positive that moves with
# inlining decisions, so it is turned off for GCC 12 only, not worked around file by file.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
   AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
endif()
option(ROPE2D_WERROR "treat compiler warnings in the project's C++ code as errors" OFF)
if(ROPE2D_WERROR)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
# ptxas's per-kernel register and spill report (-Xptxas=-v): on request, for tuning.
option(ROPE2D_PTXAS_VERBOSE "print ptxas's resource usage of each kernel" OFF)
