# CUDA settings shared by the cuda/ libraries and their tests (the CUDA20 dialect flag is set
# once in the top-level CMakeLists.txt). Include this file in every CMakeLists.txt that builds
# CUDA code.

# swat_cuda_target(TARGET): warnings and device-lambda support for a CUDA target.
function(swat_cuda_target target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall --extended-lambda>)
endfunction()
