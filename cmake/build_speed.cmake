# Build time of the default targets (docs/install.md, "Where build time goes"). The program's
# subcommands each include CLI11 (header only: every file compiles its validators and parser) and
# the verifier's files nlohmann-json and fmt (header only): compiled as a few unity files
# instead, those headers are compiled a few times, not once per file. A file whose
# anonymous-namespace names clash with another's is left out by name; files with their own
# compile definitions are left out by CMake. -DROPE2D_UNITY=OFF compiles file by file.
option(ROPE2D_UNITY "compile the program and the verifier library as unity files" ON)
if(ROPE2D_UNITY)
  set_target_properties(rope2d_verify PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  set_target_properties(rope2d PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 6)
  # bad() in an anonymous namespace, as in safetensors.cpp.
  set_source_files_properties(${PROJECT_SOURCE_DIR}/verify/src/harness/solution.cpp TARGET_DIRECTORY rope2d_verify
                              PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endif()
