# swat_fft_host: the plain C++ half of the FFT (planning, CPU executor), built in every
# configuration, CPU-only too (tests/cuda/studies/fft includes this file when CUDA is off).
if(NOT TARGET swat_fft_host)
  include(${SWAT_ROOT}/cuda/sync/barrier/host_library.cmake)
  add_library(swat_fft_host STATIC ${CMAKE_CURRENT_LIST_DIR}/fft_plan.cpp)
  target_include_directories(swat_fft_host PUBLIC ${SWAT_ROOT} ${SWAT_ROOT}/src)
  target_link_libraries(swat_fft_host PUBLIC swat_barrier_host)
  target_compile_options(swat_fft_host PRIVATE -Wall -Wextra)
endif()
