# CUDA settings shared by the cuda/ libraries and their tests. Include this file in every
# CMakeLists.txt that builds CUDA code (it sets directory-scope variables).
# CMake 3.25 does not know the flag for the CUDA20 dialect of nvcc ("requires the language
# dialect CUDA20"); tell it here (directory scope) instead of editing the top level.
if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()

# swat_cuda_target(TARGET): warnings and device-lambda support for a CUDA target.
function(swat_cuda_target target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall --extended-lambda>)
endfunction()
