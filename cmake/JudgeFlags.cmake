# Refuses flush-to-zero in the GPU judge: nvcc defines no macro for -ftz=true, and a judge built
# with it decides subnormal references as 0 and widens subnormal outputs as 0 (wrong verdicts,
# silently). Three checks: the flags at configure time (rope2d_check_judge_flags), the built
# device code's PTX (rope2d_refuse_ftz_in_device_code) and the host's arithmetic under its
# flags (rope2d_probe_host_subnormals). Used by verify/ and, in script mode, by its tests.

# FATAL_ERROR naming `where` when `flags` (a string or a list) holds a flag that flushes
# subnormals: -ftz=true, --use_fast_math (which implies it), a fast-math host flag
# (-ffast-math, -Ofast: crtfastmath sets flush-to-zero for the whole process).
function(rope2d_refuse_flush_to_zero where flags)
  string(REPLACE ";" " " text " ${flags} ")
  string(REGEX REPLACE "[ \t\n]+" " " text "${text}")
  set(bad "")
  if(text MATCHES " --?ftz(=| )(true|1|True|TRUE) ")
    list(APPEND bad "-ftz=true")
  endif()
  if(text MATCHES " --?use_fast_math ")
    list(APPEND bad "--use_fast_math")
  endif()
  if(text MATCHES "[ ,=]-ffast-math[ ,]" OR text MATCHES "[ ,=]-Ofast[ ,]" OR text MATCHES "[ ,=]-fdenormal-fp-math=[a-z-]*(preserve-sign|positive-zero)")
    list(APPEND bad "fast math on the host side")
  endif()
  if(bad)
    message(FATAL_ERROR "rope2d: ${where} holds ${bad}: the GPU judge must not be built with flush-to-zero "
                        "(subnormal references and outputs would be judged as zero). Remove it from ${where}.")
  endif()
endfunction()

# Every place flags for `target`'s CUDA sources come from, checked at configure time.
function(rope2d_check_judge_flags target)
  set(places CMAKE_CUDA_FLAGS)
  if(CMAKE_BUILD_TYPE)
    string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
    list(APPEND places CMAKE_CUDA_FLAGS_${config})
  endif()
  foreach(v IN LISTS places)
    rope2d_refuse_flush_to_zero("${v}" "${${v}}")
  endforeach()
  get_directory_property(dir_options COMPILE_OPTIONS)
  rope2d_refuse_flush_to_zero("the directory's compile options" "${dir_options}")
  foreach(p COMPILE_OPTIONS INTERFACE_COMPILE_OPTIONS)
    get_target_property(options ${target} ${p})
    if(options)
      rope2d_refuse_flush_to_zero("${target}'s ${p}" "${options}")
    endif()
  endforeach()
  get_target_property(sources ${target} SOURCES)
  foreach(s IN LISTS sources)
    if(s MATCHES "\\.cu$")
      get_source_file_property(options ${s} COMPILE_OPTIONS)
      if(options)
        rope2d_refuse_flush_to_zero("${s}'s COMPILE_OPTIONS" "${options}")
      endif()
    endif()
  endforeach()
endfunction()

# The refusal by content, whatever put flush-to-zero there (NVCC_APPEND_FLAGS or
# NVCC_PREPEND_FLAGS in the environment, an --options-file, flags set after this check): after
# `target` is built, the PTX embedded in each of its CUDA objects is read, and the build fails
# (the library deleted, so nothing links a flushing judge and the next build checks again) if
# any instruction carries .ftz, or if an object holds no readable PTX (the check cannot read a
# compressed fatbinary: --no-compress is added here, and a build that compresses anyway is
# refused rather than passed unread). The SASS is compiled from that PTX by the same nvcc call.
set(_rope2d_judge_flags_file ${CMAKE_CURRENT_LIST_FILE})
function(rope2d_refuse_ftz_in_device_code target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--no-compress>)
  set(objects "$<FILTER:$<TARGET_OBJECTS:${target}>,INCLUDE,[.]cu[.]o(bj)?$>")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} "-DROPE2D_DEVICE_OBJECTS=$<JOIN:${objects},|>"
            "-DROPE2D_DEVICE_LIBRARY=$<TARGET_FILE:${target}>" -P ${_rope2d_judge_flags_file}
    COMMENT "rope2d: reading ${target}'s device code for flush-to-zero (.ftz)" VERBATIM)
endfunction()

# Script mode: the scan itself. Every PTX instruction with a .ftz modifier (mul.ftz.f32,
# fma.rn.ftz.f32, rcp.rn.ftz.f32, setp.lt.ftz.f32, cvt.ftz.f32.f16: a type always follows) is a
# refusal; the names of CUDA's internal helpers (__cuda_sm20_rcp_rn_ftz_f32_slowpath) use
# underscores and do not match.
function(rope2d_scan_device_objects objects library)
  set(bad "")
  set(count 0)
  foreach(o IN LISTS objects)
    if(NOT EXISTS "${o}")
      list(APPEND bad "${o}: missing")
      continue()
    endif()
    file(STRINGS "${o}" ptx REGEX "[a-z0-9][.]ftz[.]")
    file(STRINGS "${o}" versions REGEX "^[ \t]*[.]version [0-9]")
    if(NOT versions)
      list(APPEND bad "${o}: no readable PTX (compressed or absent), so its arithmetic cannot be checked")
    endif()
    # A PTX line ends in ';', which splits it into list items: count the modifiers instead.
    string(REGEX MATCHALL "[a-z0-9][.]ftz[.]" hits "${ptx}")
    list(LENGTH hits n)
    if(n GREATER 0)
      string(REGEX MATCH "[^;\t]*[a-z0-9][.]ftz[.][^;]*" first "${ptx}")
      string(REGEX REPLACE "\\\\$" "" first "${first}")  # file(STRINGS) wrote the ';' as '\;'
      list(APPEND bad "${o}: ${n} instructions with .ftz, the first: ${first}")
    endif()
    math(EXPR count "${count} + 1")
  endforeach()
  if(count EQUAL 0)
    list(APPEND bad "no CUDA object to check")
  endif()
  if(bad)
    file(REMOVE "${library}")
    string(REPLACE ";" "\n  " bad "${bad}")
    message(FATAL_ERROR "rope2d: the GPU judge's device code flushes subnormals to zero or cannot be read "
                        "(${library} deleted):\n  ${bad}\nLook for -ftz=true or --use_fast_math in "
                        "NVCC_APPEND_FLAGS, NVCC_PREPEND_FLAGS, an --options-file or the CUDA flags.")
  endif()
  message(STATUS "rope2d: ${count} CUDA objects hold PTX with no .ftz instruction")
endfunction()

# The host side, at configure time: a probe (cmake/subnormal_probe.cpp) built and run with the
# project's host flags (CMAKE_CXX_FLAGS, the build type's, CMAKE_EXE_LINKER_FLAGS; the
# directory's options, generator expressions, are read by rope2d_check_judge_flags) must keep
# subnormal results and operands in float and double.
# -ffast-math and -Ofast fail it through crtfastmath's FTZ/DAZ, and so does anything else that
# sets them, whatever its flag is called.
function(rope2d_probe_host_subnormals)
  if(CMAKE_CROSSCOMPILING)
    message(STATUS "rope2d: cross-compiling; the host's subnormal probe is not run")
    return()
  endif()
  set(options "")
  if(CMAKE_BUILD_TYPE)
    string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
    separate_arguments(options NATIVE_COMMAND "${CMAKE_CXX_FLAGS_${config}}")
  endif()
  try_run(run_rc built ${CMAKE_BINARY_DIR}/rope2d_subnormal_probe ${_rope2d_judge_probe_source}
          COMPILE_DEFINITIONS ${options} LINK_OPTIONS ${options}
          COMPILE_OUTPUT_VARIABLE build_log RUN_OUTPUT_VARIABLE run_log)
  if(NOT built)
    message(FATAL_ERROR "rope2d: the host's subnormal probe did not build with these flags:\n${build_log}")
  endif()
  if(NOT run_rc EQUAL 0)
    message(FATAL_ERROR "rope2d: the host flags flush subnormals to zero (the reference and the judge's "
                        "host twin would judge subnormal values as zero):\n${run_log}"
                        "Remove -ffast-math / -Ofast (or whatever sets FTZ/DAZ) from CMAKE_CXX_FLAGS, "
                        "CMAKE_CXX_FLAGS_${config} or CMAKE_EXE_LINKER_FLAGS.")
  endif()
  message(STATUS "rope2d: host subnormal probe: ${run_log}")
endfunction()
set(_rope2d_judge_probe_source ${CMAKE_CURRENT_LIST_DIR}/subnormal_probe.cpp)

if(CMAKE_SCRIPT_MODE_FILE AND DEFINED ROPE2D_DEVICE_OBJECTS)
  string(REPLACE "|" ";" objects "${ROPE2D_DEVICE_OBJECTS}")
  rope2d_scan_device_objects("${objects}" "${ROPE2D_DEVICE_LIBRARY}")
endif()
if(CMAKE_SCRIPT_MODE_FILE AND DEFINED ROPE2D_FLAGS_TO_CHECK)
  rope2d_refuse_flush_to_zero("ROPE2D_FLAGS_TO_CHECK" "${ROPE2D_FLAGS_TO_CHECK}")
  message(STATUS "rope2d: accepted")
endif()
