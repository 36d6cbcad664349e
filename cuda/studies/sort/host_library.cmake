# swat_sort_host: the plain C++ half of the bitonic sort (planning, CPU executor), built in
# every configuration, CPU-only too (tests/cuda/studies/sort includes this file when CUDA is off).
if(NOT TARGET swat_sort_host)
  include(${SWAT_ROOT}/cuda/sync/barrier/host_library.cmake)
  add_library(swat_sort_host STATIC ${CMAKE_CURRENT_LIST_DIR}/sort_plan.cpp)
  target_include_directories(swat_sort_host PUBLIC ${SWAT_ROOT} ${SWAT_ROOT}/src)
  target_link_libraries(swat_sort_host PUBLIC swat_barrier_host)
  target_compile_options(swat_sort_host PRIVATE -Wall -Wextra)
endif()
