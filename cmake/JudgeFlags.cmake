# Refuses flush-to-zero in the flags that reach the GPU judge's CUDA sources: nvcc defines no
# macro for -ftz=true, and a judge built with it decides subnormal references as 0 and widens
# subnormal outputs as 0 (wrong verdicts, silently). Used at configure time by verify/ and,
# in script mode (cmake -DROPE2D_FLAGS_TO_CHECK=... -P JudgeFlags.cmake), by its test.

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

if(CMAKE_SCRIPT_MODE_FILE AND DEFINED ROPE2D_FLAGS_TO_CHECK)
  rope2d_refuse_flush_to_zero("ROPE2D_FLAGS_TO_CHECK" "${ROPE2D_FLAGS_TO_CHECK}")
  message(STATUS "rope2d: accepted")
endif()
