#===- meshadHelpers.cmake - meshad_generate, meshad_use_cpu_emulation ----===#
#
# Included by meshadConfig.cmake; MESHAD_GEN_EXECUTABLE and
# MESHAD_INCLUDE_DIR are set there.
#
#===----------------------------------------------------------------------===#
include_guard(GLOBAL)

# meshad_generate(OUT <file> SOURCES <file>
#                 [INCLUDE_DIRECTORIES <dir>...] [ARGS <clang arg>...])
#
# A custom command that runs meshad-gen on one source and writes the source
# with the derivatives added, for nvcc (or any CUDA compiler) to compile:
#
#   meshad_generate(OUT ${CMAKE_CURRENT_BINARY_DIR}/k.gen.cu SOURCES k.cu)
#   add_library(k OBJECT ${CMAKE_CURRENT_BINARY_DIR}/k.gen.cu)
#   target_link_libraries(k PRIVATE meshad::headers)
#
# meshad-gen parses with meshad's include directory, the given ones, and
# ARGS (e.g. -DN=4); an error of meshad fails the build at the user's line.
function(meshad_generate)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "OUT"
                        "SOURCES;INCLUDE_DIRECTORIES;ARGS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "meshad_generate: unknown arguments "
            "'${ARG_UNPARSED_ARGUMENTS}'")
  endif()
  if(NOT ARG_OUT)
    message(FATAL_ERROR "meshad_generate: OUT <file> is required")
  endif()
  list(LENGTH ARG_SOURCES _count)
  if(NOT _count EQUAL 1)
    message(FATAL_ERROR "meshad_generate: SOURCES takes one file (got "
            "${_count}); call meshad_generate once per source")
  endif()
  get_filename_component(_src "${ARG_SOURCES}" ABSOLUTE)
  get_filename_component(_out "${ARG_OUT}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  set(_includes "-I${MESHAD_INCLUDE_DIR}")
  foreach(_dir IN LISTS ARG_INCLUDE_DIRECTORIES)
    get_filename_component(_dir "${_dir}" ABSOLUTE)
    list(APPEND _includes "-I${_dir}")
  endforeach()
  add_custom_command(
    OUTPUT "${_out}"
    COMMAND "${MESHAD_GEN_EXECUTABLE}" "${_src}" -o "${_out}" --
            ${_includes} ${ARG_ARGS}
    DEPENDS "${_src}" "${MESHAD_GEN_EXECUTABLE}"
    COMMENT "meshad-gen ${ARG_SOURCES}"
    VERBATIM)
endfunction()

# meshad_use_cpu_emulation(<target>)
#
# Compiles the target's .cu sources as C++ on the CPU emulation of CUDA
# (link meshad::cpu as well): kernels launched with execute_kernel or <<<>>>
# run on the host, one block's threads after another, so kernel gradients
# can be tested without a GPU or a CUDA toolkit. Each .cu is compiled through
# a copy named .cpp in the build tree (its own directory stays on the include
# path), so the same .cu can also be a source of a CUDA target.
function(meshad_use_cpu_emulation Target)
  get_target_property(_sources ${Target} SOURCES)
  get_target_property(_source_dir ${Target} SOURCE_DIR)
  get_target_property(_binary_dir ${Target} BINARY_DIR)
  set(_kept)
  foreach(_src IN LISTS _sources)
    if(NOT _src MATCHES "\\.cu$")
      list(APPEND _kept "${_src}")
      continue()
    endif()
    get_filename_component(_abs "${_src}" ABSOLUTE BASE_DIR "${_source_dir}")
    get_filename_component(_name "${_src}" NAME_WE)
    get_filename_component(_dir "${_abs}" DIRECTORY)
    set(_copy "${_binary_dir}/meshad-cpu/${Target}/${_name}.cpp")
    add_custom_command(
      OUTPUT "${_copy}"
      COMMAND "${CMAKE_COMMAND}" -E copy "${_abs}" "${_copy}"
      DEPENDS "${_abs}"
      COMMENT "meshad: ${_src} for the CPU emulation"
      VERBATIM)
    list(APPEND _kept "${_copy}")
    target_include_directories(${Target} PRIVATE "${_dir}")
  endforeach()
  set_property(TARGET ${Target} PROPERTY SOURCES "${_kept}")
endfunction()

# meshad_use_clang_cuda(<target> [ARCH <sm_XX>...] [CUDA_PATH <dir>])
#
# Compiles the target's .cu sources as CUDA with the C++ compiler, which must
# be clang 22 (the clang the plugin was built for), and links the CUDA
# runtime: the way meshad's own tests build for a GPU. (CMake's CUDA language
# with clang as the CUDA compiler needs a newer CMake than Debian 12's for
# CUDA 13; this needs none.) Link meshad::meshad for the plugin.
#
#   add_executable(app app.cu)
#   meshad_use_clang_cuda(app ARCH sm_90)
#   target_link_libraries(app PRIVATE meshad::meshad)
function(meshad_use_clang_cuda Target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "CUDA_PATH" "ARCH")
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "meshad_use_clang_cuda(${Target}): the C++ compiler "
            "is ${CMAKE_CXX_COMPILER_ID}, not clang; configure with "
            "-DCMAKE_CXX_COMPILER=clang++-${MESHAD_CLANG_MAJOR}, or build "
            "for nvcc with meshad_generate()")
  endif()
  if(NOT ARG_CUDA_PATH)
    set(ARG_CUDA_PATH "${MESHAD_CUDA_PATH}")
  endif()
  if(NOT ARG_ARCH)
    set(ARG_ARCH sm_90)
  endif()
  get_target_property(_sources ${Target} SOURCES)
  foreach(_src IN LISTS _sources)
    if(_src MATCHES "\\.cu$")
      set_source_files_properties("${_src}" TARGET_DIRECTORY ${Target}
                                  PROPERTIES LANGUAGE CXX)
    endif()
  endforeach()
  set(_options -x cuda "--cuda-path=${ARG_CUDA_PATH}"
               -Wno-unknown-cuda-version)
  foreach(_arch IN LISTS ARG_ARCH)
    list(APPEND _options "--cuda-gpu-arch=${_arch}")
  endforeach()
  target_compile_options(${Target} PRIVATE "SHELL:${_options}")
  target_link_directories(${Target} PRIVATE "${ARG_CUDA_PATH}/lib64")
  target_link_libraries(${Target} PRIVATE cudart)
  set_property(TARGET ${Target} APPEND PROPERTY
               BUILD_RPATH "${ARG_CUDA_PATH}/lib64")
endfunction()
